// The server configuration: OPA's YAML config file (services, bundles,
// decision_logs, status, labels, keys, default_decision,
// default_authorization_decision, server.encoding / server.decoding, plugins and
// any unknown keys, which are kept), with environment substitution and `--set`
// overrides applied, defaults filled in, and the redacted view GET /v1/config shows.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { load as loadYAML } from 'js-yaml';
import { ConfigError, applySet, substituteEnv } from './overrides.js';

/** Default of server.decoding.gzip.max_length (decompressed bytes): 32 MiB; OPA's is 512 MiB. */
export const DEFAULT_GZIP_MAX_LENGTH = 32 * 1024 * 1024;

export { ConfigError };

export interface ServerConfig {
  /** The active configuration document, defaults included (unredacted). */
  document: Record<string, unknown>;
  /** The configuration as loaded (file and `--set` overrides, no defaults): `opa.runtime().config`. */
  raw?: Record<string, unknown>;
  defaultDecision: string;
  defaultAuthorizationDecision: string;
  labels: Record<string, string>;
  gzipMinLength: number;
  gzipLevel: number;
  maxLength: number;
  gzipMaxLength: number;
  decisionLogs: boolean;
  status: boolean;
  /** Names of configured bundles. */
  bundles: string[];
  /** `regent.backend` (a Regent extension): the back end of Data API decisions, `js` (default) or `wasm`. */
  backend?: 'js' | 'wasm';
}

export interface LoadConfigOptions {
  /** Path of a YAML/JSON config file. */
  file?: string;
  /** Config text (instead of a file). */
  text?: string;
  /** `--set` arguments, applied in order. */
  sets?: string[];
  env?: Record<string, string | undefined>;
  version: string;
  /** Instance id label (default: a fresh UUID). */
  id?: string;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function objectAt(doc: Record<string, unknown>, ...path: string[]): Record<string, unknown> {
  let node: unknown = doc;
  for (const k of path) node = isObject(node) ? node[k] : undefined;
  return isObject(node) ? node : {};
}

function positiveInt(value: unknown, fallback: number, name: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw new ConfigError(`invalid ${name}: must be a positive integer`);
  return value;
}

export function loadConfig(opts: LoadConfigOptions): ServerConfig {
  let text = opts.text ?? (opts.file ? readFileSync(opts.file, 'utf8') : '');
  text = substituteEnv(text, opts.env ?? process.env);
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : loadYAML(text);
  } catch (e) {
    throw new ConfigError(`config: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObject(parsed)) throw new ConfigError('config: the document must be an object');
  const doc: Record<string, unknown> = parsed;
  for (const s of opts.sets ?? []) applySet(doc, s);
  const raw = structuredClone(doc);

  doc.default_decision ??= '/system/main';
  doc.default_authorization_decision ??= '/system/authz/allow';
  if (typeof doc.default_decision !== 'string' || typeof doc.default_authorization_decision !== 'string') {
    throw new ConfigError('config: default_decision and default_authorization_decision must be strings');
  }
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(objectAt(doc, 'labels'))) labels[k] = String(v);
  labels.id = opts.id ?? labels.id ?? randomUUID();
  labels.version = opts.version;
  doc.labels = labels;

  const gzip = objectAt(doc, 'server', 'encoding', 'gzip');
  const gzipLevel = gzip.compression_level ?? 9;
  if (gzipLevel !== 0 && gzipLevel !== 1 && gzipLevel !== 9) throw new ConfigError('invalid server.encoding.gzip.compression_level: must be 0, 1 or 9');
  const decoding = objectAt(doc, 'server', 'decoding');

  const backend = objectAt(doc, 'regent').backend;
  if (backend !== undefined && backend !== null && backend !== 'js' && backend !== 'wasm') throw new ConfigError('invalid regent.backend: must be js or wasm');
  const bundles = doc.bundles ?? (doc.bundle ? { [String(objectAt(doc, 'bundle').name ?? 'bundle')]: doc.bundle } : undefined);
  return {
    document: doc,
    raw,
    defaultDecision: doc.default_decision,
    defaultAuthorizationDecision: doc.default_authorization_decision,
    labels,
    gzipMinLength: positiveInt(gzip.min_length, 1024, 'server.encoding.gzip.min_length'),
    gzipLevel,
    maxLength: positiveInt(decoding.max_length, 268435456, 'server.decoding.max_length'),
    // 32 MiB where OPA defaults to 512 MiB: a decompressed body is parsed on the
    // main thread, and 32 MiB of the densest JSON keeps that pause near half a second
    // (server/README.md, Limits). Set server.decoding.gzip.max_length for OPA's value.
    gzipMaxLength: positiveInt(objectAt(decoding, 'gzip').max_length, DEFAULT_GZIP_MAX_LENGTH, 'server.decoding.gzip.max_length'),
    decisionLogs: doc.decision_logs !== undefined && doc.decision_logs !== null,
    status: doc.status !== undefined && doc.status !== null,
    bundles: isObject(bundles) ? Object.keys(bundles) : [],
    ...(backend === 'js' || backend === 'wasm' ? { backend } : {}),
  };
}

/** The configuration as GET /v1/config shows it: service credentials and key material removed. */
export function redactConfig(doc: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(doc);
  const services = out.services;
  const entries = Array.isArray(services) ? services : isObject(services) ? Object.values(services) : [];
  for (const s of entries) if (isObject(s)) delete s.credentials;
  if (isObject(out.keys)) {
    for (const k of Object.values(out.keys)) {
      if (isObject(k)) {
        delete k.key;
        delete k.private_key;
      }
    }
  }
  return out;
}

/** Plugins the configuration enables, by OPA plugin name. */
export function configuredPlugins(config: ServerConfig): string[] {
  const out: string[] = [];
  if (config.bundles.length > 0) out.push('bundle');
  if (config.document.discovery) out.push('discovery');
  if (config.decisionLogs) out.push('decision_logs');
  if (config.status) out.push('status');
  return out;
}
