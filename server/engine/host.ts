// The engine's side of the plugin contract (server/plugins/contract.ts): bundle
// activation, plugin states and bundle statuses, labels. It also answers what the
// API needs from that state: `/health?bundles|plugins`, the `plugins_ready` flag of
// health policies, provenance bundle revisions and the status document.
import type { Bundle, Value } from '../../runtime/index.js';
import type { BundleStatus, PluginHost, PluginState } from '../plugins/contract.js';
import { activateBundle, type ActiveBundle } from './bundles.js';
import type { Engine } from './engine.js';

export class EngineHost implements PluginHost {
  private readonly states = new Map<string, { state: PluginState; message?: string }>();
  private readonly statuses = new Map<string, BundleStatus>();
  private readonly active = new Map<string, ActiveBundle>();
  /** `active`'s values as a list, made once per change (read for every logged decision). */
  private activeList: readonly ActiveBundle[] = [];
  private ready = false;
  /** Activations run one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** mayDefine answers, valid for one engine generation. */
  private readonly mayDefineCache = new Map<string, { generation: number; value: boolean }>();

  constructor(
    private readonly engine: Engine,
    private readonly labelValues: Record<string, string>,
    /** Plugins the configuration enables; they are NOT_READY until they report. */
    expectedPlugins: string[] = [],
  ) {
    for (const p of expectedPlugins) this.states.set(p, { state: 'NOT_READY' });
    this.updateReady();
  }

  activateBundle(name: string, bundle: Bundle): Promise<void> {
    const run = this.queue.then(async () => {
      const record = await activateBundle(this.engine, name, bundle, [...this.active.values()]);
      this.active.set(name, record);
      this.activeList = [...this.active.values()];
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  setPluginState(plugin: string, state: PluginState, message?: string): void {
    this.states.set(plugin, { state, ...(message ? { message } : {}) });
    this.updateReady();
  }

  setBundleStatus(status: BundleStatus): void {
    this.statuses.set(status.name, status);
  }

  labels(): Record<string, string> {
    return { ...this.labelValues };
  }

  /** Evaluate the document at a slash path (decision-log mask/drop policies). */
  evaluate(path: string, input: Value): Promise<Value | undefined> {
    const segs = path.split('/').filter((s) => s !== '');
    const query = 'data' + segs.map((s) => `[${JSON.stringify(s)}]`).join('');
    return Promise.resolve(this.engine.evalLocal(query, input)[0]?.expressions[0]?.value);
  }

  /** Whether a rule or base data could define the document at a slash path (asked per logged decision: cached per engine generation). */
  mayDefine(path: string): boolean {
    const generation = this.engine.generation;
    const cached = this.mayDefineCache.get(path);
    if (cached !== undefined && cached.generation === generation) return cached.value;
    const segs = path.split('/').filter((s) => s !== '');
    const value = this.engine.hasRulesOverlapping(segs) || this.engine.store.read(segs) !== undefined;
    this.mayDefineCache.set(path, { generation, value });
    return value;
  }

  /** Active bundles by name (provenance, status). */
  activeBundles(): readonly ActiveBundle[] {
    return this.activeList;
  }

  bundleStatuses(): Record<string, BundleStatus> {
    return Object.fromEntries(this.statuses);
  }

  pluginStates(): Record<string, PluginState> {
    return Object.fromEntries([...this.states].map(([k, v]) => [k, v.state]));
  }

  /** True once every registered plugin has been OK at the same time; stays true. */
  get pluginsReady(): boolean {
    return this.ready;
  }

  private updateReady(): void {
    if (!this.ready && [...this.states.values()].every((s) => s.state === 'OK')) this.ready = true;
  }

  /** Plugins not in state OK, except the excluded ones. */
  pluginsNotOK(exclude: string[] = []): string[] {
    return [...this.states].filter(([name, s]) => !exclude.includes(name) && s.state !== 'OK').map(([name]) => name);
  }

  /**
   * The bundle check of /health?bundles: the bundle (and discovery) plugins are OK,
   * or WARN (activated, a later download failed: OPA keeps answering 200 then).
   */
  bundlesActivated(): boolean {
    return ['bundle', 'discovery'].every((p) => !this.states.has(p) || this.states.get(p)!.state === 'OK' || this.states.get(p)!.state === 'WARN');
  }
}
