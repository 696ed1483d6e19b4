// The decision logs plugin (OPA's v1/plugins/logs): events are masked and
// dropped by policy when the host can evaluate (`mask_decision`, default
// /system/log/mask; `drop_decision`, default /system/log/drop), rate limited
// (`max_decisions_per_second`), then printed (`console: true`) and/or buffered
// for upload. Buffers are bounded (`buffer_type: size` by bytes, `event` by
// count, 10000) and drop the oldest events. Uploads run every
// [min_delay_seconds, max_delay_seconds] (300–600): `POST <service><resource>`
// (`/logs`, or `/logs/<partition_name>`) with gzip-compressed JSON arrays, each
// chunk at most `upload_size_limit_bytes` (32768) compressed. A failed chunk
// and everything after it go back to the buffer and the next attempt backs off.
import { promisify } from 'node:util';
import { constants as zlibConstants, gzip as gzipCb } from 'node:zlib';
import type { DecisionEvent, PluginHost } from './contract.js';
import { PluginConfigError } from './bundle-config.js';
import { applyMask, eventJSON, eventValue } from './event-json.js';
import { HTTPStatusError, type ServiceClient, type ServiceConfig } from './services.js';
import { consoleLogger } from './console-logger.js';
import { parseJSON, RObject } from '../../runtime/index.js';
import { EventStore } from './event-store.js';
import { backoffMs, jitterMs, messageOf, silentLogger, sleep, type PluginLogger } from './util.js';

const gzip = promisify(gzipCb);
/**
 * Uploads are compressed at zlib's fastest level: on JSON events it costs a third to
 * a quarter of the CPU of the default level for chunks about 10% larger (OPA's Go
 * writer uses its default level; any level is the same gzip JSON to the service).
 */
const UPLOAD_GZIP = { level: zlibConstants.Z_BEST_SPEED };
const gzipUpload = (bytes: Buffer): Promise<Buffer> => gzip(bytes, UPLOAD_GZIP);

export interface DecisionLogsConfig {
  service?: string;
  resource: string;
  console: boolean;
  bufferType: 'size' | 'event';
  bufferSizeLimitBytes?: number;
  bufferSizeLimitEvents: number;
  uploadSizeLimitBytes: number;
  minDelayMs: number;
  maxDelayMs: number;
  maxDecisionsPerSecond?: number;
  maskDecision: string;
  dropDecision: string;
  trigger: 'periodic' | 'manual';
}

const n = (v: unknown, what: string): number | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new PluginConfigError(`invalid decision_logs config: ${what} must be a non-negative number`);
  return v;
};

/** Validate `decision_logs` with OPA's defaults; undefined when not configured. */
export function parseDecisionLogsConfig(raw: unknown, services: Map<string, ServiceConfig>): DecisionLogsConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object') throw new PluginConfigError('invalid decision_logs config: must be an object');
  const c = raw as Record<string, unknown>;
  const r = (c.reporting ?? {}) as Record<string, unknown>;
  const consoleOn = c.console === true;
  let service = typeof c.service === 'string' && c.service !== '' ? c.service : undefined;
  if (service !== undefined && !services.has(service)) throw new PluginConfigError(`invalid service name "${service}" in decision_logs`);
  if (service === undefined && !consoleOn) service = services.keys().next().value as string | undefined;
  if (service === undefined && !consoleOn) throw new PluginConfigError('invalid decision_logs config: a service or console logging is required');
  const bufferType = r.buffer_type ?? 'size';
  if (bufferType !== 'size' && bufferType !== 'event') throw new PluginConfigError(`invalid decision_logs config: invalid buffer_type "${String(bufferType)}"`);
  const min = n(r.min_delay_seconds, 'reporting.min_delay_seconds') ?? 300;
  const max = n(r.max_delay_seconds, 'reporting.max_delay_seconds') ?? Math.max(600, min);
  if (max < min) throw new PluginConfigError('invalid decision_logs config: max reporting delay must be >= min reporting delay');
  let resource = typeof c.resource === 'string' && c.resource !== '' ? c.resource : '/logs';
  if (typeof c.partition_name === 'string' && c.partition_name !== '') resource = `/logs/${c.partition_name}`;
  const cfg: DecisionLogsConfig = {
    resource,
    console: consoleOn,
    bufferType,
    bufferSizeLimitEvents: n(r.buffer_size_limit_events, 'reporting.buffer_size_limit_events') ?? 10000,
    uploadSizeLimitBytes: n(r.upload_size_limit_bytes, 'reporting.upload_size_limit_bytes') ?? 32768,
    minDelayMs: min * 1000,
    maxDelayMs: max * 1000,
    maskDecision: typeof c.mask_decision === 'string' ? c.mask_decision : '/system/log/mask',
    dropDecision: typeof c.drop_decision === 'string' ? c.drop_decision : '/system/log/drop',
    trigger: r.trigger === 'manual' ? 'manual' : 'periodic',
  };
  if (service !== undefined) cfg.service = service;
  const bytes = n(r.buffer_size_limit_bytes, 'reporting.buffer_size_limit_bytes');
  if (bytes !== undefined) cfg.bufferSizeLimitBytes = bytes;
  const rate = n(r.max_decisions_per_second, 'reporting.max_decisions_per_second');
  if (rate !== undefined) cfg.maxDecisionsPerSecond = rate;
  return cfg;
}

/**
 * The compression ratio the first chunk of an upload is sized for. JSON decision
 * events compress to 0.1–0.2 of their size at level 1, so a first chunk sized for 0.5
 * fits and is compressed once; sizing it for the whole buffer instead (no ratio known
 * yet) compressed every byte of a large upload twice, the first time for nothing.
 */
const FIRST_CHUNK_RATIO = 0.5;

/**
 * Split JSON events into gzip chunks of at most `limit` compressed bytes, in order
 * (oversized single events are returned in `dropped`). Each chunk takes as many
 * events as the compression ratio seen so far (FIRST_CHUNK_RATIO for the first)
 * says fit in 90% of the limit, so most bytes are compressed once; a chunk that comes
 * out too large is retried with proportionally fewer events (at least halved).
 */
export async function encodeChunks(
  list: readonly string[] | EventStore,
  limit: number,
  compress: (bytes: Buffer) => Promise<Buffer> = gzipUpload,
): Promise<{ chunks: EncodedChunk[]; dropped: number }> {
  const events = Array.isArray(list) ? EventStore.of(list) : (list as EventStore);
  const chunks: EncodedChunk[] = [];
  let dropped = 0;
  let ratio = FIRST_CHUNK_RATIO; // compressed ÷ uncompressed bytes of the last chunk made
  let scratch: Buffer | undefined;
  let lo = 0;
  while (lo < events.length) {
    const budget = (0.9 * limit) / ratio;
    let size = 2;
    let hi = lo;
    while (hi < events.length && (hi === lo || size + events.sizeOf(hi) + 1 <= budget)) size += events.sizeOf(hi++) + 1;
    for (;;) {
      // The chunk's bytes are not needed once compressed: every chunk is joined into
      // one scratch buffer (see EventStore.join), grown with room to spare, since the
      // chunk sizes follow the ratio of the chunk before.
      const need = events.joinedBytes(lo, hi);
      if (scratch === undefined || scratch.length < need) scratch = Buffer.allocUnsafeSlow(Math.ceil(need * 1.5));
      const bytes = events.join(lo, hi, scratch);
      const body = await compress(bytes);
      ratio = Math.max(body.length / bytes.length, 1e-3);
      if (body.length <= limit) {
        chunks.push({ body, count: hi - lo, lo, hi });
        lo = hi;
        break;
      }
      if (hi - lo === 1) {
        dropped++;
        lo = hi;
        break;
      }
      // Fewer events: in proportion to the overshoot, and at least half as many.
      hi = lo + Math.max(1, Math.min(Math.floor((hi - lo) / 2), Math.floor(((hi - lo) * 0.9 * limit) / body.length)));
    }
  }
  return { chunks, dropped };
}

/** One upload: gzip JSON array of the events [lo, hi) of the list given to encodeChunks. */
export interface EncodedChunk {
  body: Buffer;
  count: number;
  lo: number;
  hi: number;
}

export interface DecisionLogsStatus {
  code?: string;
  message?: string;
  http_code?: number;
  metrics?: Record<string, number>;
}

export class DecisionLogger {
  /** Events waiting for upload, as bytes outside the JS heap (event-store.ts). */
  private buffer = new EventStore();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private uploading: Promise<boolean> | undefined;
  private retry = 0;
  private tokens: number;
  private lastRefill = Date.now();
  readonly counters = { dropped_buffer_size_limit_exceeded: 0, dropped_rate_limit_exceeded: 0, dropped_upload_size_limit_exceeded: 0, uploaded: 0 };
  lastStatus: DecisionLogsStatus = {};

  constructor(
    readonly config: DecisionLogsConfig,
    private readonly client: ServiceClient | undefined,
    private readonly host: PluginHost,
    private readonly logger: PluginLogger = silentLogger,
    private readonly onStatus?: (s: DecisionLogsStatus) => void,
    /** OPA's console logger (`console: true`): stderr, logrus JSON (console-logger.ts). */
    private readonly console: PluginLogger = consoleLogger(),
  ) {
    this.tokens = config.maxDecisionsPerSecond ?? 0;
  }

  start(): void {
    if (!this.client || this.config.trigger !== 'periodic' || this.loop) return;
    this.loop = this.run();
  }

  /** Number of events waiting for upload. */
  get pending(): number {
    return this.buffer.length;
  }

  private rateLimited(): boolean {
    const rate = this.config.maxDecisionsPerSecond;
    if (rate === undefined) return false;
    const now = Date.now();
    this.tokens = Math.min(rate, this.tokens + ((now - this.lastRefill) / 1000) * rate);
    this.lastRefill = now;
    if (this.tokens < 1) return true;
    this.tokens -= 1;
    return false;
  }

  /**
   * Log one decision (mask/drop, rate limit, console, buffer). Never throws, never
   * rejects. Synchronous (no promise) unless a mask or drop policy may apply.
   */
  log(event: DecisionEvent): void | Promise<void> {
    try {
      const host = this.host;
      if (host.evaluate) {
        // Most deployments define neither policy: then there is nothing to evaluate.
        const drops = host.mayDefine?.(this.config.dropDecision) ?? true;
        const masks = host.mayDefine?.(this.config.maskDecision) ?? true;
        if (drops || masks) return this.logByPolicy(event, drops, masks);
      }
      this.record(event);
    } catch (err) {
      this.failed(err);
    }
  }

  private async logByPolicy(event: DecisionEvent, drops: boolean, masks: boolean): Promise<void> {
    try {
      let e = event;
      const host = this.host;
      const input = eventValue(e);
      if (drops && (await host.evaluate!(this.config.dropDecision, input)) === true) return;
      const mask = masks ? await host.evaluate!(this.config.maskDecision, input) : undefined;
      if (mask !== undefined) e = applyMask(e, mask);
      this.record(e);
    } catch (err) {
      this.failed(err);
    }
  }

  private failed(err: unknown): void {
    this.logger.error({ plugin: 'decision_logs', err: messageOf(err) }, 'Decision log event could not be processed.');
  }

  /** Rate limit, console, buffer. */
  private record(e: DecisionEvent): void {
    if (this.rateLimited()) {
      this.counters.dropped_rate_limit_exceeded++;
      return;
    }
    const json = eventJSON(e);
    // As OPA: the event's fields (exact numbers, keys sorted) plus `type`, at info.
    if (this.config.console) this.console.info(Object.assign(fieldsObject(json), { type: 'openpolicyagent.org/decision_logs' }), 'Decision Log');
    if (!this.client) return;
    this.buffer.push(json);
    this.enforceLimits();
  }

  private enforceLimits(): void {
    const maxEvents = this.config.bufferType === 'event' ? this.config.bufferSizeLimitEvents : Infinity;
    const maxBytes = this.config.bufferType === 'size' ? (this.config.bufferSizeLimitBytes ?? Infinity) : Infinity;
    while (this.buffer.length > 0 && (this.buffer.length > maxEvents || this.buffer.bytes > maxBytes)) {
      this.buffer.shift();
      this.counters.dropped_buffer_size_limit_exceeded++;
    }
  }

  /** Upload everything buffered now; resolves true when all chunks were accepted. */
  flush(): Promise<boolean> {
    if (!this.client) return Promise.resolve(true);
    if (!this.uploading) this.uploading = this.upload().finally(() => (this.uploading = undefined));
    return this.uploading;
  }

  private async upload(): Promise<boolean> {
    const events = this.buffer;
    this.buffer = new EventStore();
    try {
      return events.length === 0 || (await this.uploadChunks(events));
    } finally {
      // Sent, or copied back into the buffer as strings: its blocks are free. An idle
      // interval's empty release trims the block pool to its minimum.
      events.release();
    }
  }

  /** Upload `events` in gzip chunks; on a failure, requeue the unsent ones. */
  private async uploadChunks(events: EventStore): Promise<boolean> {
    const { chunks, dropped } = await encodeChunks(events, this.config.uploadSizeLimitBytes);
    this.counters.dropped_upload_size_limit_exceeded += dropped;
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      try {
        const res = await this.client!.request('POST', this.config.resource, {
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body: c.body,
          signal: this.abort.signal,
        });
        if (res.status < 200 || res.status >= 300) throw new HTTPStatusError(res.status);
        this.counters.uploaded += c.count;
      } catch (e) {
        // Requeue the unsent events (in order, before anything logged meanwhile).
        const unsent = chunks.slice(i).flatMap((x) => events.strings(x.lo, x.hi));
        const meanwhile = this.buffer;
        this.buffer = EventStore.of([...unsent, ...meanwhile.strings()]);
        meanwhile.release();
        this.enforceLimits();
        this.setStatus({ code: 'decision_logs_error', message: messageOf(e), ...(e instanceof HTTPStatusError ? { http_code: e.statusCode } : {}) });
        this.logger.error({ plugin: 'decision_logs', err: messageOf(e) }, 'Log upload failed.');
        return false;
      }
    }
    this.setStatus({});
    return true;
  }

  private setStatus(s: DecisionLogsStatus): void {
    this.lastStatus = s;
    this.onStatus?.(s);
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      const delay = this.retry > 0 ? backoffMs(this.config.minDelayMs, this.config.maxDelayMs, this.retry) : jitterMs(this.config.minDelayMs, this.config.maxDelayMs);
      if (!(await sleep(delay, this.abort.signal))) return;
      const ok = await this.flush();
      this.retry = ok ? 0 : this.retry + 1;
    }
  }

  /** Stop the timer; one last bounded upload attempt of what is buffered. */
  async stop(timeoutMs = 2000): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (!this.client || this.buffer.length === 0) return;
    const final = new AbortController();
    const t = setTimeout(() => final.abort(), timeoutMs);
    t.unref?.();
    try {
      await Promise.race([this.uploadOnce(final.signal), sleep(timeoutMs)]);
    } finally {
      clearTimeout(t);
    }
  }

  private async uploadOnce(signal: AbortSignal): Promise<void> {
    const events = this.buffer;
    const { chunks } = await encodeChunks(events, this.config.uploadSizeLimitBytes);
    this.buffer = new EventStore();
    events.release();
    for (const c of chunks) {
      await this.client!.request('POST', this.config.resource, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: c.body, signal }).catch(() => undefined);
    }
  }
}

/** The top-level fields of an event's JSON, values as Rego values (exact numbers). */
function fieldsObject(json: string): Record<string, unknown> {
  const v = parseJSON(json);
  const out: Record<string, unknown> = {};
  if (v instanceof RObject) for (const [k, x] of v.entries()) out[String(k)] = x;
  return out;
}
