// Small helpers shared by the plugins: OPA's retry backoff, Go-style RFC 3339
// timestamps, a minimal logger interface (pino satisfies it), and an abortable,
// unref'd sleep so no plugin timer ever keeps the process (or a test) alive.

/** The subset of pino's logger the plugins use. */
export interface PluginLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export const silentLogger: PluginLogger = { info() {}, warn() {}, error() {}, debug() {} };

/** OPA's util.DefaultBackoff: base·1.6^retries capped at max, ±20% jitter (ms in, ms out). */
export function backoffMs(baseMs: number, maxMs: number, retries: number, random: () => number = Math.random): number {
  if (retries <= 0) return baseMs;
  let delay = baseMs;
  for (let r = retries; delay < maxMs && r > 0; r--) delay *= 1.6;
  if (delay > maxMs) delay = maxMs;
  return delay * (1 + 0.2 * (random() * 2 - 1));
}

/** A uniformly random delay in [minMs, maxMs] (OPA's polling jitter). */
export function jitterMs(minMs: number, maxMs: number, random: () => number = Math.random): number {
  return minMs + (maxMs - minMs) * random();
}

/** Go's time.Time JSON form (RFC 3339 with trailing fractional zeros trimmed). */
export function rfc3339(d: Date | undefined): string {
  if (d === undefined) return '0001-01-01T00:00:00Z';
  return d.toISOString().replace(/\.(\d*?)0+Z$/, (_m, f: string) => (f ? `.${f}Z` : 'Z'));
}

/** Sleep `ms`, resolving early (to false) when `signal` aborts; the timer is unref'd. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, Math.max(0, ms));
    timer.unref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A positive number from config, or the default; throws on a bad type. */
export function numberOption(value: unknown, def: number, what: string): number {
  if (value === undefined || value === null) return def;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`${what}: must be a non-negative number`);
  return value;
}

export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
