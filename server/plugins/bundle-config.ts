// The `bundles` section of the config, validated and with OPA's defaults
// (v1/plugins/bundle/config.go, v1/download/config.go): resource
// `bundles/<name>`, service defaulting to the first configured one, polling
// between min_delay_seconds (60) and max_delay_seconds (120), optional
// long_polling_timeout_seconds, size_limit_bytes (1 GiB), trigger
// periodic|manual, persist, and `signing` checked against the `keys` section.
// A `file://` resource needs no service: the bundle is read from that local
// file or directory. The deprecated single `bundle: {name, service, prefix,
// polling}` key is mapped onto one source (resource `<prefix>/<name>`, prefix
// default `bundles`) and, as in OPA, wins over `bundles` when both are set.
import { posix } from 'node:path';
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
  /** The service to download from; '' for `file://` resources. */
  service: string;
  resource: string;
  /** Set for a `file://` resource: the local file or directory to read instead of downloading. */
  file?: string;
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
    const resource = typeof b.resource === 'string' && b.resource !== '' ? b.resource : `bundles/${name}`;
    // As OPA: a `file://` resource is only checked to be a URL; its service is neither defaulted nor checked.
    if (resource.startsWith('file://')) {
      try {
        new URL(resource);
      } catch (e) {
        throw new PluginConfigError(`invalid URL for bundle "${name}": ${(e as Error).message}`);
      }
    } else service = resolveService(service, firstService, services, name);
    const cfg: BundleSourceConfig = {
      name,
      service,
      resource,
      persist: b.persist === true,
      polling: parsePolling(b.polling, where),
      sizeLimitBytes: num(b.size_limit_bytes, `${where}: size_limit_bytes`) ?? DEFAULT_SIZE_LIMIT_BYTES,
      trigger: parseTrigger(b.trigger, where),
    };
    const file = filePath(resource);
    if (file !== undefined) cfg.file = file;
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

function resolveService(service: string, firstService: string | undefined, services: Map<string, ServiceConfig>, name: string): string {
  if (service === '') {
    if (firstService === undefined) throw new PluginConfigError(`invalid configuration for bundle "${name}": service name required (no services configured)`);
    return firstService;
  }
  if (!services.has(service)) throw new PluginConfigError(`invalid service name "${service}" in bundle "${name}"`);
  return service;
}

function parseTrigger(raw: unknown, where: string): 'periodic' | 'manual' {
  const trigger = raw ?? 'periodic';
  if (trigger !== 'periodic' && trigger !== 'manual') throw new PluginConfigError(`${where}: invalid trigger mode "${String(trigger)}" (want "periodic" or "manual")`);
  return trigger;
}

/** The local path of a resource whose URL scheme is `file` (OPA's url.Parse(...).Path), else undefined. */
export function filePath(resource: string): string | undefined {
  if (!/^file:/i.test(resource)) return undefined;
  try {
    const u = new URL(resource);
    return u.protocol === 'file:' ? decodeURIComponent(u.pathname) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The deprecated single `bundle` key, mapped as OPA's bundle.ParseConfig does:
 * `name` required, `prefix` defaulting to `bundles`, resource `<prefix>/<name>`
 * (leading slash trimmed), the service defaulted/checked, no signing, no
 * persistence, the default size limit. Undefined when the key is absent.
 */
export function parseLegacyBundleConfig(raw: unknown, services: Map<string, ServiceConfig>): BundleSourceConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new PluginConfigError('bundle: must be an object');
  const b = raw as Record<string, unknown>;
  const name = typeof b.name === 'string' ? b.name : '';
  if (name === '') throw new PluginConfigError(`invalid bundle name "${name}"`);
  const where = `invalid configuration for bundle "${name}"`;
  const prefix = typeof b.prefix === 'string' ? b.prefix : 'bundles';
  let service = typeof b.service === 'string' ? b.service : '';
  if (service === '' && services.size > 0) service = services.keys().next().value as string;
  else if (!services.has(service)) throw new PluginConfigError(`${where}: service name "${service}" not found`);
  const resource = posix.join(prefix, name).replace(/^\/+/, '');
  const cfg: BundleSourceConfig = {
    name,
    service,
    resource,
    persist: false,
    polling: parsePolling(b.polling, where),
    sizeLimitBytes: DEFAULT_SIZE_LIMIT_BYTES,
    trigger: parseTrigger(b.trigger, where),
  };
  const file = filePath(resource);
  if (file !== undefined) cfg.file = file;
  return cfg;
}

/** All bundle sources: the legacy `bundle` key when set (then `bundles` is ignored, as in OPA), else `bundles`. */
export function parseBundleSources(config: Record<string, unknown>, services: Map<string, ServiceConfig>, keys: Record<string, KeyConfig>): { sources: BundleSourceConfig[]; legacy: boolean } {
  const legacy = parseLegacyBundleConfig(config.bundle, services);
  if (legacy) return { sources: [legacy], legacy: true };
  return { sources: parseBundlesConfig(config.bundles, services, keys), legacy: false };
}
