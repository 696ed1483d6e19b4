// The bundle plugin: one BundleDownloader per configured bundle, polling
// `GET <service>/<resource>` as OPA's downloader does (v1/download/download.go,
// v1/plugins/bundle/plugin.go). Each cycle sends `If-None-Match` with the last
// activated ETag and `Prefer: modes=snapshot,delta[;wait=N]`; 304 keeps the
// bundle, 200 reads, verifies and activates it through PluginHost (atomically —
// a bad bundle leaves the old one active and its error in the status). Delays:
// uniform in [min,max] after success, immediate re-poll while the server
// long-polls, OPA's exponential backoff after errors. Delta bundles are applied
// to the last snapshot here, so the host only ever activates full bundles.
// A `file://` source (OPA's fileLoader) reads its file or directory once at
// start and again on every trigger — no polling, no ETag, no size in the
// status — and goes through the same activation and status path.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync, existsSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { applyBundlePatch, readBundle, readBundleDir, type Bundle, type BundleModule } from '../../runtime/index.js';
import type { BundleStatus, PluginHost } from './contract.js';
import type { BundleSourceConfig } from './bundle-config.js';
import { HTTPStatusError, type ServiceClient } from './services.js';
import { backoffMs, jitterMs, messageOf, rfc3339, silentLogger, sleep, type PluginLogger } from './util.js';

const LONG_POLL_CONTENT_TYPE = 'application/vnd.openpolicyagent.bundles';
const MIN_RETRY_DELAY_MS = 100;
const COMPILE_ERROR_MESSAGE = 'error(s) occurred while compiling module(s)';

export interface DownloaderOptions {
  logger?: PluginLogger;
  /** Where `persist: true` bundles are stored (`<dir>/bundles/<name>/bundle.tar.gz`). */
  persistenceDirectory?: string;
  /** Rego version for modules the manifest is silent about. */
  defaultRegoVersion?: 0 | 1;
  /** Package resolver handed to the reader (e.g. the compiler's parser). */
  packageOf?: (m: BundleModule) => string[] | undefined;
  /** Called after every status change (the status plugin listens here). */
  onStatus?: (s: BundleStatus) => void;
  /** Called after the first successful activation. */
  onActivated?: (name: string) => void;
  random?: () => number;
}

/** The status error fields for an error, as OPA's Status.SetError. */
export function statusError(e: unknown): Pick<BundleStatus, 'code' | 'message' | 'errors' | 'http_code'> {
  const errs = (e as { errors?: unknown })?.errors;
  if (Array.isArray(errs) && errs.length > 0 && (e as Error).name !== 'BundleError') {
    return { code: 'bundle_error', message: COMPILE_ERROR_MESSAGE, errors: errs.map((x) => (typeof (x as { toJSON?: unknown })?.toJSON === 'function' ? (x as { toJSON(): unknown }).toJSON() : x)) };
  }
  if (e instanceof HTTPStatusError) return { code: 'bundle_error', message: e.message, http_code: e.statusCode };
  return { code: 'bundle_error', message: messageOf(e) };
}

export class BundleDownloader {
  private etag = '';
  private activatedEtag = '';
  private longPoll: boolean;
  private retry = 0;
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private snapshot: Bundle | undefined;
  private readonly times: { request?: Date; success?: Date; download?: Date; activation?: Date } = {};
  private current: BundleStatus;
  private stopped = false;
  activated = false;

  constructor(
    readonly config: BundleSourceConfig,
    /** Undefined only for `file://` sources. */
    private readonly client: ServiceClient | undefined,
    private readonly host: PluginHost,
    private readonly opts: DownloaderOptions = {},
  ) {
    this.longPoll = config.polling.longPollingTimeoutSeconds !== undefined;
    this.current = { name: config.name };
  }

  private get log(): PluginLogger {
    return this.opts.logger ?? silentLogger;
  }

  /** The current status, in OPA's shape (zero times for events that never happened). */
  status(): BundleStatus {
    return {
      ...this.current,
      last_successful_download: rfc3339(this.times.download),
      last_successful_activation: rfc3339(this.times.activation),
      last_request: rfc3339(this.times.request),
      last_successful_request: rfc3339(this.times.success),
    };
  }

  private publish(patch: Partial<BundleStatus>, clearError: boolean): void {
    const next: BundleStatus = { ...this.current, ...patch };
    if (clearError) for (const k of ['code', 'message', 'errors', 'http_code'] as const) if (!(k in patch)) delete next[k];
    this.current = next;
    const s = this.status();
    this.host.setBundleStatus(s);
    this.opts.onStatus?.(s);
  }

  /** Load a persisted bundle, if any, before the first download. */
  async loadPersisted(): Promise<void> {
    const file = this.persistPath();
    if (!file || !existsSync(file)) return;
    try {
      const bundle = await readBundle(readFileSync(file), this.readOptions());
      await this.activate(bundle);
      this.log.info({ name: this.config.name, plugin: 'bundle' }, 'Bundle loaded from disk and activated successfully.');
    } catch (e) {
      this.log.error({ name: this.config.name, plugin: 'bundle', err: messageOf(e) }, 'Failed to load bundle from disk.');
      this.publish(statusError(e), false);
    }
  }

  /** Start periodic polling (no-op for manual triggers); a `file://` source is read once, whatever the trigger. */
  start(): void {
    if (this.loop) return;
    if (this.config.file !== undefined) {
      this.loop = this.oneShot().then(() => undefined);
      return;
    }
    if (this.config.trigger !== 'periodic') return;
    this.loop = this.run();
  }

  /** One download/activation cycle, as `trigger: manual` does. Resolves with the error, if any. */
  async trigger(): Promise<Error | undefined> {
    return this.oneShot();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    // Bounded by the stop signal: every iteration awaits a request or a sleep that aborts.
    while (!this.abort.signal.aborted) {
      const err = await this.oneShot();
      if (this.abort.signal.aborted) return;
      let delay = 0;
      const p = this.config.polling;
      if (err) delay = backoffMs(MIN_RETRY_DELAY_MS, p.maxDelayMs, this.retry, this.opts.random);
      else if (!this.longPoll) delay = jitterMs(p.minDelayMs, p.maxDelayMs, this.opts.random);
      this.log.debug({ name: this.config.name, plugin: 'bundle', delay_ms: Math.round(delay) }, 'Waiting before next download/retry.');
      if (!(await sleep(delay, this.abort.signal))) return;
      this.retry = err ? this.retry + 1 : 0;
    }
  }

  private readOptions(etag?: string) {
    return {
      sizeLimitBytes: this.config.sizeLimitBytes,
      ...(this.config.verification ? { verification: this.config.verification } : {}),
      defaultRegoVersion: this.opts.defaultRegoVersion ?? 1,
      ...(this.opts.packageOf ? { packageOf: this.opts.packageOf } : {}),
      persist: this.config.persist,
      ...(etag !== undefined ? { etag } : {}),
    };
  }

  private oneShot(): Promise<Error | undefined> {
    return this.config.file !== undefined ? this.fileShot(this.config.file) : this.httpShot(this.client!);
  }

  /** OPA's fileLoader.oneShot + the plugin's process(): stat, read (file or directory), activate. */
  private async fileShot(path: string): Promise<Error | undefined> {
    this.times.request = new Date();
    let bundle: Bundle;
    try {
      const opts = { ...this.readOptions(), persist: false };
      bundle = statOrThrow(path).isDirectory() ? await readBundleDir(path, opts) : await readBundle(readFileSync(path), opts);
    } catch (e) {
      return this.fail(e, {});
    }
    const loaded = await this.activateRead(bundle, {});
    if (loaded instanceof Error) return loaded;
    this.log.info({ name: this.config.name, plugin: 'bundle' }, 'Bundle loaded and activated successfully.');
    this.publish({ metrics: loaded, type: bundle.type ?? 'snapshot' }, true);
    return undefined;
  }

  /**
   * Activate a bundle that was read (file or download): on success the metrics
   * with the load time; on failure the recorded error (the old bundle stays).
   */
  private async activateRead(bundle: Bundle, metrics: Record<string, number>): Promise<Record<string, number> | Error> {
    this.times.success = this.times.request;
    this.times.download = this.times.request;
    const loadStart = process.hrtime.bigint();
    const withLoadTime = (): Record<string, number> => ({ ...metrics, timer_rego_load_bundles_ns: Number(process.hrtime.bigint() - loadStart) });
    try {
      await this.activate(bundle);
    } catch (e) {
      this.log.error({ name: this.config.name, plugin: 'bundle', err: messageOf(e) }, 'Bundle activation failed.');
      return this.fail(e, withLoadTime(), bundle);
    }
    return withLoadTime();
  }

  private async httpShot(client: ServiceClient): Promise<Error | undefined> {
    const started = process.hrtime.bigint();
    this.times.request = new Date();
    const headers: Record<string, string> = {};
    if (this.etag) headers['if-none-match'] = this.etag;
    const wait = this.config.polling.longPollingTimeoutSeconds;
    const longPolling = this.longPoll && wait !== undefined;
    headers.prefer = longPolling ? `modes=snapshot,delta;wait=${wait}` : 'modes=snapshot,delta';
    let res;
    try {
      res = await client.request('GET', this.config.resource, {
        headers,
        signal: this.abort.signal,
        ...(longPolling ? { headersTimeoutMs: (wait + (client.config.response_header_timeout_seconds ?? 10)) * 1000 } : {}),
      });
    } catch (e) {
      if (this.stopped) return undefined;
      return this.fail(new Error(`request failed: ${messageOf(e)}`));
    }
    const metrics = { timer_bundle_request_ns: Number(process.hrtime.bigint() - started) };
    if (res.status === 304) {
      this.times.success = this.times.request;
      this.etag = res.headers.etag || this.etag;
      this.log.debug({ name: this.config.name, plugin: 'bundle' }, 'Bundle download skipped, server replied with not modified.');
      this.publish({ metrics }, true);
      return undefined;
    }
    if (res.status !== 200) return this.fail(new HTTPStatusError(res.status), metrics);
    const etag = res.headers.etag ?? '';
    this.longPoll = wait !== undefined && (res.headers['content-type'] ?? '').split(';')[0]!.trim() === LONG_POLL_CONTENT_TYPE;
    if (res.body.length === 0) {
      this.times.success = this.times.request;
      this.publish({ metrics }, true);
      return undefined;
    }
    let bundle: Bundle;
    try {
      bundle = await readBundle(res.body, this.readOptions(etag));
    } catch (e) {
      return this.fail(e, metrics);
    }
    const loaded = await this.activateRead(bundle, metrics);
    if (loaded instanceof Error) return loaded;
    this.etag = etag;
    this.activatedEtag = etag;
    if (this.config.persist && bundle.type !== 'delta') this.persist(res.body);
    this.log.info({ name: this.config.name, plugin: 'bundle', etag }, 'Bundle loaded and activated successfully.');
    this.publish({ metrics: loaded, size: res.body.length, type: bundle.type ?? 'snapshot' }, true);
    return undefined;
  }

  /** Activate (applying a delta to the last snapshot first); updates activation fields on success. */
  private async activate(bundle: Bundle): Promise<void> {
    let full = bundle;
    if (bundle.type === 'delta') {
      if (!this.snapshot) throw new Error('delta bundle cannot be applied: no snapshot bundle is active');
      const roots = (r?: string[]): string => JSON.stringify([...(r ?? [''])].sort());
      if (roots(bundle.manifest.roots) !== roots(this.snapshot.manifest.roots)) throw new Error('delta bundle roots do not match the active snapshot bundle roots');
      full = { ...this.snapshot, manifest: bundle.manifest, data: applyBundlePatch(this.snapshot.data, bundle.patch ?? []), type: 'snapshot', etag: bundle.etag ?? '' };
      delete full.patch;
    }
    await this.host.activateBundle(this.config.name, full);
    this.snapshot = full;
    this.times.activation = new Date();
    this.current = { ...this.current, active_revision: bundle.manifest.revision ?? '' };
    if (!this.current.active_revision) delete this.current.active_revision;
    if (!this.activated) {
      this.activated = true;
      this.opts.onActivated?.(this.config.name);
    }
  }

  private fail(e: unknown, metrics?: Record<string, number>, bundle?: Bundle): Error {
    const err = e instanceof Error ? e : new Error(String(e));
    // OPA clears the ETag on error and restores the last activated one, so the
    // next request re-downloads anything newer than what is active.
    this.etag = this.activatedEtag;
    if (bundle === undefined) this.log.error({ name: this.config.name, plugin: 'bundle', err: err.message }, 'Bundle load failed.');
    const patch: Partial<BundleStatus> = { ...statusError(err), ...(metrics ? { metrics } : {}) };
    const next = { ...this.current };
    for (const k of ['code', 'message', 'errors', 'http_code'] as const) delete next[k];
    this.current = next;
    this.publish(patch, false);
    return err;
  }

  private persistPath(): string | undefined {
    if (!this.config.persist || !this.opts.persistenceDirectory) return undefined;
    return join(this.opts.persistenceDirectory, 'bundles', this.config.name, 'bundle.tar.gz');
  }

  private persist(raw: Buffer): void {
    const file = this.persistPath();
    if (!file) return;
    try {
      mkdirSync(join(file, '..'), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, raw);
      renameSync(tmp, file);
    } catch (e) {
      this.log.error({ name: this.config.name, plugin: 'bundle', err: messageOf(e) }, 'Persisting bundle to disk failed.');
    }
  }
}

const GO_ERRNO: Record<string, string> = { ENOENT: 'no such file or directory', EACCES: 'permission denied', ENOTDIR: 'not a directory', ELOOP: 'too many levels of symbolic links' };

/** fs.statSync with Go's os.Stat error text (`stat <path>: no such file or directory`). */
function statOrThrow(path: string): Stats {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    throw new Error(`stat ${path}: ${GO_ERRNO[code] ?? messageOf(e)}`);
  }
}
