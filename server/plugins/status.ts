// The status plugin (OPA's v1/plugins/status): keeps the status document —
// `labels`, `bundles.<name>` (the bundle plugin's fields), `plugins.<name>.state`,
// `decision_logs` (upload errors) and `metrics` — and reports it on every
// change: printed (`console: true`) and/or `POST <service>/status`
// (`/status/<partition_name>`) as JSON. Changes are coalesced: one sender loop
// always sends the newest document, backing off after failures.
import type { BundleStatus, PluginState } from './contract.js';
import { PluginConfigError } from './bundle-config.js';
import type { DecisionLogsStatus } from './decision-logs.js';
import { HTTPStatusError, type ServiceClient, type ServiceConfig } from './services.js';
import { backoffMs, messageOf, silentLogger, sleep, type PluginLogger } from './util.js';

export interface StatusConfig {
  service?: string;
  resource: string;
  console: boolean;
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
  let service = typeof c.service === 'string' && c.service !== '' ? c.service : undefined;
  if (service !== undefined && !services.has(service)) throw new PluginConfigError(`invalid service name "${service}" in status`);
  if (service === undefined && !consoleOn) service = services.keys().next().value as string | undefined;
  if (service === undefined && !consoleOn) throw new PluginConfigError('invalid status config: a service or console reporting is required');
  const resource = typeof c.partition_name === 'string' && c.partition_name !== '' ? `/status/${c.partition_name}` : '/status';
  return { ...(service !== undefined ? { service } : {}), resource, console: consoleOn };
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
  /** Documents successfully sent (for tests and metrics). */
  sent = 0;

  constructor(
    readonly config: StatusConfig,
    private readonly client: ServiceClient | undefined,
    private readonly labels: () => Record<string, string>,
    private readonly logger: PluginLogger = silentLogger,
    private readonly metrics: () => Record<string, unknown> = () => ({}),
  ) {}

  start(): void {
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

  document(): StatusDocument {
    const doc: StatusDocument = { labels: this.labels() };
    if (this.bundles.size > 0) doc.bundles = Object.fromEntries([...this.bundles].sort(([a], [b]) => (a < b ? -1 : 1)));
    if (this.decisionLogs && Object.keys(this.decisionLogs).length > 0) doc.decision_logs = this.decisionLogs;
    doc.metrics = { prometheus: this.metrics() };
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
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        if (signal.aborted) return;
      }
      this.dirty = false;
      const ok = await this.send(this.document(), signal);
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
    if (this.config.console) this.logger.info(doc, 'Status Log');
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
  }
}
