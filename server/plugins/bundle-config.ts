// The `bundles` section of the config, validated and with OPA's defaults
// (v1/plugins/bundle/config.go, v1/download/config.go): resource
// `bundles/<name>`, service defaulting to the first configured one, polling
// between min_delay_seconds (60) and max_delay_seconds (120), optional
// long_polling_timeout_seconds, size_limit_bytes (1 GiB), trigger
// periodic|manual, persist, and `signing` checked against the `keys` section.
import { DEFAULT_SIZE_LIMIT_BYTES, type KeyConfig, type VerificationConfig } from '../../runtime/index.js';
import type { ServiceConfig } from './services.js';

export class PluginConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginConfigError';
  }
}

export interface PollingConfig {
  minDelayMs: number;
  maxDelayMs: number;
  /** Long polling wait in whole seconds (sent as `Prefer: …;wait=N`); undefined: plain polling. */
  longPollingTimeoutSeconds?: number;
}

export interface BundleSourceConfig {
  name: string;
  service: string;
  resource: string;
  persist: boolean;
  polling: PollingConfig;
  sizeLimitBytes: number;
  trigger: 'periodic' | 'manual';
  /** Set when the bundle has a `signing` section. */
  verification?: VerificationConfig;
}

function num(v: unknown, what: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new PluginConfigError(`${what} must be a non-negative number`);
  return v;
}

/** Polling settings shared by bundles (and discovery-like plugins). */
export function parsePolling(raw: unknown, where: string, defaults = { min: 60, max: 120 }): PollingConfig {
  const p = (raw ?? {}) as Record<string, unknown>;
  const min = num(p.min_delay_seconds, `${where}: polling.min_delay_seconds`);
  const max = num(p.max_delay_seconds, `${where}: polling.max_delay_seconds`);
  const lp = num(p.long_polling_timeout_seconds, `${where}: polling.long_polling_timeout_seconds`);
  const minS = min ?? (max !== undefined && max < defaults.min ? max : defaults.min);
  const maxS = max ?? (minS > defaults.max ? minS : defaults.max);
  if (maxS < minS) throw new PluginConfigError(`${where}: max polling delay must be >= min polling delay`);
  if (lp !== undefined && lp <= 0) throw new PluginConfigError(`${where}: long polling timeout must be set to a value greater than zero`);
  return { minDelayMs: minS * 1000, maxDelayMs: maxS * 1000, ...(lp !== undefined ? { longPollingTimeoutSeconds: lp } : {}) };
}

/** Validate `bundles` (object keyed by name) against the services and keys. */
export function parseBundlesConfig(raw: unknown, services: Map<string, ServiceConfig>, keys: Record<string, KeyConfig>): BundleSourceConfig[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new PluginConfigError('bundles: must be an object keyed by bundle name');
  const out: BundleSourceConfig[] = [];
  const firstService = services.keys().next().value as string | undefined;
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const where = `invalid configuration for bundle "${name}"`;
    if (value === null || typeof value !== 'object') throw new PluginConfigError(`${where}: must be an object`);
    const b = value as Record<string, unknown>;
    let service = typeof b.service === 'string' ? b.service : '';
    if (service === '') {
      if (firstService === undefined) throw new PluginConfigError(`${where}: service name required (no services configured)`);
      service = firstService;
    } else if (!services.has(service)) throw new PluginConfigError(`invalid service name "${service}" in bundle "${name}"`);
    const trigger = b.trigger ?? 'periodic';
    if (trigger !== 'periodic' && trigger !== 'manual') throw new PluginConfigError(`${where}: invalid trigger mode "${String(trigger)}" (want "periodic" or "manual")`);
    const resource = typeof b.resource === 'string' && b.resource !== '' ? b.resource : `bundles/${name}`;
    const cfg: BundleSourceConfig = {
      name,
      service,
      resource,
      persist: b.persist === true,
      polling: parsePolling(b.polling, where),
      sizeLimitBytes: num(b.size_limit_bytes, `${where}: size_limit_bytes`) ?? DEFAULT_SIZE_LIMIT_BYTES,
      trigger,
    };
    if (b.signing !== undefined && b.signing !== null) {
      const s = b.signing as Record<string, unknown>;
      const keyid = typeof s.keyid === 'string' ? s.keyid : '';
      if (keyid !== '' && !Object.hasOwn(keys, keyid)) throw new PluginConfigError(`${where}: key id ${keyid} not found`);
      cfg.verification = {
        keys,
        ...(keyid ? { keyid } : {}),
        ...(typeof s.scope === 'string' ? { scope: s.scope } : {}),
        ...(Array.isArray(s.exclude_files) ? { exclude_files: s.exclude_files.map(String) } : {}),
      };
    }
    out.push(cfg);
  }
  return out;
}
