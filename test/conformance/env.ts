// Temporary process.env overrides for a case's `env` block: set the variables for
// one run, then put back the previous values (deleting the ones that were unset).
// Shared by the conformance runner and the differential comparison.

/** The previous values of overridden variables (undefined = was unset). */
export type SavedEnv = Record<string, string | undefined>;

/** Sets each variable of `env` and returns what to restore, or undefined when there is no env. */
export function withEnv(env: Record<string, string> | undefined): SavedEnv | undefined {
  if (!env) return undefined;
  const saved: SavedEnv = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = String(v);
  }
  return saved;
}

/** Restores the variables `withEnv` changed. */
export function restoreEnv(saved: SavedEnv | undefined): void {
  if (!saved) return;
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}
