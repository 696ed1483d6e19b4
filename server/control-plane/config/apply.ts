// Loads the definitions of a configuration into storage at start-up
// (control-plane-behaviors.md §2.3): secrets, then sources (already sorted so
// that required sources come first), bundles and stacks, all as the `internal`
// principal. Config entries overwrite API edits of the same name on every start;
// definitions removed from the config stay in the database, which is the source
// of truth once the server runs. Any failure stops start-up with a message
// naming the definition.
import { ConfigError } from '../errors.js';
import type { Storage } from '../storage/storage.js';
import { INTERNAL_PRINCIPAL, type ControlPlaneConfig } from '../types.js';

async function step(what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    throw new ConfigError(`load config failed: upsert ${what} failed: ${(e as Error).message}`);
  }
}

export async function applyConfig(store: Storage, config: ControlPlaneConfig): Promise<void> {
  const who = INTERNAL_PRINCIPAL.id;
  for (const s of config.secrets) await step(`secret "${s.name}"`, () => store.putSecret(s.name, s.value, who));
  for (const s of config.sources) await step(`source "${s.name}"`, () => store.put('source', s, who));
  for (const b of config.bundles) await step(`bundle "${b.name}"`, () => store.put('bundle', b, who));
  for (const s of config.stacks) await step(`stack "${s.name}"`, () => store.put('stack', s, who));
}
