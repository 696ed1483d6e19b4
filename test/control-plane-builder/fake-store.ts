// An in-memory DefinitionStore for builder tests: definitions in maps (list
// order = insertion order), source documents per source, and every status
// record appended (the real stores keep the last 10 per bundle).
import type { BundleDef, DefinitionStore, SecretValue, SourceDef, StackDef, StatusRecord } from '../../server/control-plane/contract.js';

export class FakeStore implements DefinitionStore {
  readonly bundles = new Map<string, BundleDef>();
  readonly sources = new Map<string, SourceDef>();
  readonly stacks = new Map<string, StackDef>();
  readonly secrets = new Map<string, SecretValue>();
  readonly data = new Map<string, Map<string, unknown>>();
  readonly statuses: StatusRecord[] = [];

  constructor(init: { bundles?: BundleDef[]; sources?: SourceDef[]; stacks?: StackDef[]; secrets?: Record<string, SecretValue> } = {}) {
    for (const b of init.bundles ?? []) this.bundles.set(b.name, b);
    for (const s of init.sources ?? []) this.sources.set(s.name, s);
    for (const s of init.stacks ?? []) this.stacks.set(s.name, s);
    for (const [k, v] of Object.entries(init.secrets ?? {})) this.secrets.set(k, v);
  }

  putData(source: string, path: string, value: unknown): void {
    if (!this.data.has(source)) this.data.set(source, new Map());
    this.data.get(source)!.set(path, value);
  }

  /** Status records of one bundle, newest last. */
  statusOf(bundle: string): StatusRecord[] {
    return this.statuses.filter((s) => s.bundle_name === bundle);
  }

  async listBundles(): Promise<BundleDef[]> {
    return [...this.bundles.values()];
  }
  async getBundle(name: string): Promise<BundleDef | undefined> {
    return this.bundles.get(name);
  }
  async listSources(): Promise<SourceDef[]> {
    return [...this.sources.values()];
  }
  async getSource(name: string): Promise<SourceDef | undefined> {
    return this.sources.get(name);
  }
  async listStacks(): Promise<StackDef[]> {
    return [...this.stacks.values()];
  }
  async getSecretValue(name: string): Promise<SecretValue | undefined> {
    return this.secrets.get(name);
  }
  async listSourceData(source: string): Promise<{ path: string; value: unknown }[]> {
    return [...(this.data.get(source) ?? new Map<string, unknown>())].map(([path, value]) => ({ path, value }));
  }
  async addStatus(record: StatusRecord): Promise<void> {
    this.statuses.push(record);
  }
}
