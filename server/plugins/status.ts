// The status plugin (OPA's v1/plugins/status): keeps the status document —
// `labels`, `bundles.<name>` (the bundle plugin's fields), `plugins.<name>.state`,
// `decision_logs` (upload errors) and `metrics` — and reports it on every
// change: printed (`console: true`) and/or `POST <service>/status`
// (`/status/<partition_name>`) as JSON. Changes are coalesced: one sender loop
// always sends the newest document, backing off after failures. With
// `heartbeat_seconds` (a Regent extension) an unchanged document is re-sent
// after that long, so a control plane can mark silent engines stale.
// `metrics.prometheus` holds the engine registry's metric families (plus the
// optional inner metrics); `prometheus: true` also registers OPA's status
// collectors on that registry and updates them on every report (status-metrics.ts).
import { consoleLogger } from './console-logger.js';
import type { Registry } from 'prom-client';
import type { BundleStatus, PluginState } from './contract.js';
import { PluginConfigError } from './bundle-config.js';
import type { DecisionLogsStatus } from './decision-logs.js';
import { HTTPStatusError, type ServiceClient, type ServiceConfig } from './services.js';
import { StatusCollectors, gatherFamilies } from './status-metrics.js';
import { backoffMs, messageOf, silentLogger, sleep, type PluginLogger } from './util.js';

export interface StatusConfig {
  service?: string;
  resource: string;
  console: boolean;
  /** `prometheus: true`: register and update OPA's status collectors. */
  prometheus?: boolean;
  /** `prometheus_config.collectors.bundle_loading_duration_ns.buckets`. */
  bundleLoadBuckets?: number[];
  /**
   * `heartbeat_seconds` (Regent extension; OPA ignores the key): also send the
   * current document when nothing changed for this long, so a control plane can
   * tell a quiet engine from a dead one.
   */
  heartbeatMs?: number;
}

/** Where the status document's `metrics.prometheus` comes from. */
export interface StatusMetricsSource {
  /** The engine's Prometheus registry (gathered into metric families). */
  registry?: Registry;
  /** Extra metrics merged in (OPA's inner metrics, e.g. `counter_*`). */
  inner?: () => Record<string, unknown>;
}

export interface StatusDocument {
  labels: Record<string, string>;
  bundles?: Record<string, BundleStatus>;
  decision_logs?: DecisionLogsStatus;
  metrics?: Record<string, unknown>;
  plugins?: Record<string, { state: PluginState; message?: string }>;
}

/** Validate `status`; undefined when not configured. */
export function parseStatusConfig(raw: unknown, services: Map<string, ServiceConfig>): StatusConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object') throw new PluginConfigError('invalid status config: must be an object');
  const c = raw as Record<string, unknown>;
  const consoleOn = c.console === true;
  const prometheus = c.prometheus === true;
  let service = typeof c.service === 'string' && c.service !== '' ? c.service : undefined;
  if (service !== undefined && !services.has(service)) throw new PluginConfigError(`invalid service name "${service}" in status`);
  // As OPA: default to the first service only when neither console nor prometheus reporting is on.
  if (service === undefined && !consoleOn && !prometheus) service = services.keys().next().value as string | undefined;
  if (service === undefined && !consoleOn && !prometheus) throw new PluginConfigError('invalid status config: a service or console reporting is required');
  const resource = typeof c.partition_name === 'string' && c.partition_name !== '' ? `/status/${c.partition_name}` : '/status';
  const cfg: StatusConfig = { ...(service !== undefined ? { service } : {}), resource, console: consoleOn, prometheus };
  if (c.heartbeat_seconds !== undefined && c.heartbeat_seconds !== null) {
    const hb = c.heartbeat_seconds;
    if (typeof hb !== 'number' || !(hb > 0)) throw new PluginConfigError('invalid status config: heartbeat_seconds must be a positive number');
    cfg.heartbeatMs = hb * 1000;
  }
  const pc = c.prometheus_config as { collectors?: { bundle_loading_duration_ns?: { buckets?: unknown } } } | undefined;
  const buckets = pc?.collectors?.bundle_loading_duration_ns?.buckets;
  if (buckets !== undefined && buckets !== null) {
    if (!Array.isArray(buckets) || !buckets.every((b) => typeof b === 'number')) throw new PluginConfigError('invalid status config: prometheus_config.collectors.bundle_loading_duration_ns.buckets must be an array of numbers');
    cfg.bundleLoadBuckets = buckets as number[];
  }
  return cfg;
}

export class StatusReporter {
  private readonly bundles = new Map<string, BundleStatus>();
  private readonly plugins = new Map<string, { state: PluginState; message?: string }>();
  private decisionLogs: DecisionLogsStatus | undefined;
  private readonly abort = new AbortController();
  private dirty = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private retry = 0;
  private collectors: StatusCollectors | undefined;
  /** Documents successfully sent (for tests and metrics). */
  sent = 0;

  constructor(
    readonly config: StatusConfig,
    private readonly client: ServiceClient | undefined,
    private readonly labels: () => Record<string, string>,
    private readonly logger: PluginLogger = silentLogger,
    private readonly metrics: StatusMetricsSource = {},
    /** OPA's console logger (`console: true`): stderr, logrus JSON (console-logger.ts). */
    private readonly console: PluginLogger = consoleLogger(),
  ) {}

  start(): void {
    if (this.config.prometheus && this.metrics.registry && !this.collectors) {
      this.collectors = new StatusCollectors(this.metrics.registry, this.labels().version ?? '', this.config.bundleLoadBuckets);
      this.collectors.register(this.logger);
    }
    if (!this.loop) this.loop = this.run();
  }

  setBundle(s: BundleStatus): void {
    this.bundles.set(s.name, s);
    this.changed();
  }

  setPlugin(name: string, state: PluginState, message?: string): void {
    const prev = this.plugins.get(name);
    if (prev && prev.state === state && prev.message === message) return;
    this.plugins.set(name, message ? { state, message } : { state });
    this.changed();
  }

  setDecisionLogs(s: DecisionLogsStatus): void {
    this.decisionLogs = s;
    this.changed();
  }

  /** The status document now (OPA's snapshot: the registry is gathered at this point). */
  async document(): Promise<StatusDocument> {
    const doc: StatusDocument = { labels: this.labels() };
    if (this.bundles.size > 0) doc.bundles = Object.fromEntries([...this.bundles].sort(([a], [b]) => (a < b ? -1 : 1)));
    if (this.decisionLogs && Object.keys(this.decisionLogs).length > 0) doc.decision_logs = this.decisionLogs;
    const families = this.metrics.registry ? await gatherFamilies(this.metrics.registry) : {};
    const all: Record<string, unknown> = { ...(this.metrics.inner?.() ?? {}), ...families };
    doc.metrics = { prometheus: Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : 1))) };
    if (this.plugins.size > 0) doc.plugins = Object.fromEntries([...this.plugins].sort(([a], [b]) => (a < b ? -1 : 1)));
    return doc;
  }

  private changed(): void {
    this.dirty = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    signal.addEventListener('abort', () => this.wake?.(), { once: true });
    while (!signal.aborted) {
      if (!this.dirty) {
        // Wait for a change, or (heartbeat_seconds, with a service) resend the same document.
        let heartbeat: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          if (this.config.heartbeatMs !== undefined && this.client) {
            heartbeat = setTimeout(resolve, this.config.heartbeatMs);
            heartbeat.unref();
          }
        });
        clearTimeout(heartbeat);
        this.wake = undefined;
        if (signal.aborted) return;
      }
      this.dirty = false;
      const ok = await this.send(await this.document(), signal);
      if (ok) this.retry = 0;
      else {
        this.dirty = true;
        this.retry++;
        if (!(await sleep(backoffMs(100, 60_000, this.retry), signal))) return;
      }
    }
  }

  /** Report one document now; true when delivered (or nothing to deliver to). */
  async send(doc: StatusDocument, signal?: AbortSignal): Promise<boolean> {
    if (this.config.console) this.console.info({ ...doc, type: 'openpolicyagent.org/status' }, 'Status Log');
    // As OPA: the collectors are updated after the snapshot, from the document being reported.
    this.collectors?.update(doc.plugins, doc.bundles);
    if (!this.client) return true;
    try {
      const res = await this.client.request('POST', this.config.resource, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(doc),
        ...(signal ? { signal } : {}),
      });
      if (res.status < 200 || res.status >= 300) throw new HTTPStatusError(res.status);
      this.sent++;
      return true;
    } catch (e) {
      if (!signal?.aborted) this.logger.error({ plugin: 'status', err: messageOf(e) }, 'Status update failed.');
      return false;
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.loop;
    this.collectors?.unregister();
    this.collectors = undefined;
  }
}
