// The BuildScheduler: keeps one BundleWorker per bundle and decides when each
// builds. A bundle builds when it first appears, then every `rebuild_interval`
// (Go duration on the bundle, default 30 s; 30 s after a failure), and — unlike
// OCP, which only notices changes at the next tick — shortly after
// notifyChanged(): changes are debounced (default 100 ms) and the named (or all)
// bundles rebuild at once; a build already running is followed by one more.
// The bundle list is reconciled every 15 s and on every notification. At most
// `concurrency` (10) builds run at once. Timers are unref'd; stop() clears them
// and waits for running builds.
import type { BuildScheduler, DefinitionStore } from './contract.js';
import type { BundleDefX } from './builder/deps.js';
import { BundleWorker, type BuildOutcome, type WorkerOptions } from './worker.js';

export interface SchedulerOptions extends WorkerOptions {
  defaultIntervalMs?: number;
  errorIntervalMs?: number;
  debounceMs?: number;
  reconcileMs?: number;
  concurrency?: number;
  /** Called after every build (tests, metrics, progress output). */
  onBuild?: (outcome: BuildOutcome) => void;
}

interface Slot {
  worker: BundleWorker;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  again: boolean;
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parse a Go duration (`30s`, `1m30s`, `1h`, `500ms`); undefined when invalid or empty. */
export function parseDuration(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    end = re.lastIndex;
  }
  return end === text.length && end > 0 ? total : undefined;
}

export class Scheduler implements BuildScheduler {
  private readonly slots = new Map<string, Slot>();
  private readonly dirty = new Set<string>();
  private dirtyAll = false;
  private debounce?: NodeJS.Timeout;
  private reconcileTimer?: NodeJS.Timeout;
  private stopped = true;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly opts: SchedulerOptions) {}

  private get store(): DefinitionStore {
    return this.opts.store;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.reconcile();
    this.reconcileTimer = setInterval(() => void this.reconcile(), this.opts.reconcileMs ?? 15_000);
    this.reconcileTimer.unref();
  }

  notifyChanged(bundles?: string[]): void {
    if (this.stopped) return;
    if (bundles) for (const b of bundles) this.dirty.add(b);
    else this.dirtyAll = true;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.flush(), this.opts.debounceMs ?? 100);
    this.debounce.unref();
  }

  /**
   * Build `name` now (the rebuild route): no debounce; a build already running is
   * followed by one more. A bundle the scheduler has not seen yet gets its worker here.
   */
  rebuildNow(name: string): void {
    if (this.stopped) return;
    this.workerFor(name);
    this.trigger(name);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.debounce) clearTimeout(this.debounce);
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    for (const s of this.slots.values()) if (s.timer) clearTimeout(s.timer);
    await Promise.all([...this.slots.values()].map((s) => s.running));
  }

  /** Build every bundle (or the named ones) once, now; resolves with the outcomes. */
  async buildAll(names?: string[]): Promise<BuildOutcome[]> {
    const all = (await this.store.listBundles()).map((b) => b.name).filter((n) => !names || names.includes(n));
    const outcomes = await Promise.all(all.map((n) => this.limited(() => this.workerFor(n).execute())));
    return outcomes.filter((o): o is BuildOutcome => o !== undefined);
  }

  private workerFor(name: string): BundleWorker {
    let slot = this.slots.get(name);
    if (!slot) {
      slot = { worker: new BundleWorker(name, this.opts), again: false };
      this.slots.set(name, slot);
    }
    return slot.worker;
  }

  private async flush(): Promise<void> {
    const all = this.dirtyAll;
    const names = [...this.dirty];
    this.dirtyAll = false;
    this.dirty.clear();
    const created = await this.reconcile();
    for (const name of all ? [...this.slots.keys()] : names) if (!created.has(name)) this.trigger(name);
  }

  /** Sync the worker set with the stored bundles; new bundles build immediately. */
  private async reconcile(): Promise<Set<string>> {
    const created = new Set<string>();
    if (this.stopped) return created;
    let defs: BundleDefX[];
    try {
      defs = (await this.store.listBundles()) as BundleDefX[];
    } catch (e) {
      this.opts.log?.('error', 'listing bundles failed', { error: (e as Error).message });
      return created;
    }
    const names = new Set(defs.map((d) => d.name));
    for (const [name, slot] of this.slots) {
      if (!names.has(name)) {
        if (slot.timer) clearTimeout(slot.timer);
        this.slots.delete(name);
      }
    }
    for (const name of names) {
      if (this.slots.has(name)) continue;
      this.workerFor(name);
      created.add(name);
      this.trigger(name);
    }
    return created;
  }

  private trigger(name: string): void {
    const slot = this.slots.get(name);
    if (!slot || this.stopped) return;
    if (slot.running) {
      slot.again = true;
      return;
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.running = this.run(name, slot).finally(() => {
      slot.running = undefined;
      if (slot.again && !this.stopped) {
        slot.again = false;
        this.trigger(name);
      }
    });
  }

  private async run(name: string, slot: Slot): Promise<void> {
    let outcome: BuildOutcome | undefined;
    try {
      outcome = await this.limited(() => slot.worker.execute());
    } catch (e) {
      this.opts.log?.('error', 'build failed', { bundle: name, error: (e as Error).message });
    }
    if (outcome) this.opts.onBuild?.(outcome);
    if (this.stopped || this.slots.get(name) !== slot) return;
    const def = (await this.store.getBundle(name).catch(() => undefined)) as BundleDefX | undefined;
    if (!def) return;
    const ok = outcome?.status === 'SUCCESS';
    const delay = ok ? (parseDuration(def.rebuild_interval) ?? this.opts.defaultIntervalMs ?? 30_000) : (this.opts.errorIntervalMs ?? 30_000);
    slot.timer = setTimeout(() => this.trigger(name), delay);
    slot.timer.unref();
  }

  /** Run with at most `concurrency` builds in flight. */
  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    const max = this.opts.concurrency ?? 10;
    while (this.active >= max) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
