// Loads the control plane's configuration in the reference format
// (control-plane-behaviors.md §2): one or more YAML/JSON files or directories
// (walked recursively, lexical order, every file parsed), deep-merged (later
// wins), validated against the JSON Schema, then normalised into definitions.
// Sources are topologically sorted so that required sources are stored first.
// Environment variables are expanded in token keys, the database DSN and
// top-level string values of datasource configs; secret values keep `$VAR`
// text and are expanded at use (storage getSecretValue).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { load as loadYAML } from 'js-yaml';
import { ConfigError, InvalidParameter } from '../errors.js';
import type { ControlPlaneConfig, DatabaseConfig, Role, SourceDef, TokenConfig } from '../types.js';
import { secretValueOf, toBundleDef, toSourceDef, toStackDef } from './definitions.js';
import { formatSchemaErrors, validateConfig } from './schema.js';
import { validateMetricsConfig, type MetricsConfig } from '../metrics.js';
import { fleetConfigOf } from '../fleet/config.js';

type Obj = Record<string, unknown>;

/** `$X` and `${X}` expansion; unset variables expand to ''. */
export function expandEnv(s: string, env: NodeJS.ProcessEnv = process.env): string {
  return s.replace(/\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a?: string, b?: string) => env[a ?? b ?? ''] ?? '');
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge: maps merge recursively, any other value from `b` wins. */
export function mergeConfig(a: unknown, b: unknown): unknown {
  if (!isObj(a) || !isObj(b)) return b === undefined ? a : b;
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? mergeConfig(out[k], v) : v;
  return out;
}

function filesOf(path: string): string[] {
  const st = statSync(path);
  if (!st.isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((e) => filesOf(join(path, e)));
}

/** Read and merge config files/directories into one raw document. */
export function readConfigFiles(paths: string[]): unknown {
  let merged: unknown = {};
  for (const p of paths) {
    let files: string[];
    try {
      files = filesOf(p);
    } catch (e) {
      throw new ConfigError(`configuration file ${p}: ${(e as Error).message}`);
    }
    for (const f of files) {
      let doc: unknown;
      try {
        doc = loadYAML(readFileSync(f, 'utf8'));
      } catch (e) {
        throw new ConfigError(`configuration file ${f}: ${(e as Error).message}`);
      }
      if (doc === undefined || doc === null) continue;
      if (!isObj(doc)) throw new ConfigError(`configuration file ${f}: top level must be a mapping`);
      merged = mergeConfig(merged, doc);
    }
  }
  return merged;
}

function sortSources(sources: SourceDef[]): SourceDef[] {
  const byName = new Map(sources.map((s) => [s.name, s]));
  const out: SourceDef[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (s: SourceDef): void => {
    const st = state.get(s.name);
    if (st === 'done') return;
    if (st === 'visiting') throw new ConfigError(`configuration error: cycle found on source "${s.name}"`);
    state.set(s.name, 'visiting');
    for (const r of s.requirements ?? []) {
      const dep = r.source ? byName.get(r.source) : undefined;
      if (dep) visit(dep);
    }
    state.set(s.name, 'done');
    out.push(s);
  };
  for (const s of [...sources].sort((a, b) => cmp(a.name, b.name))) visit(s);
  return out;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function tokensOf(raw: Obj, env: NodeJS.ProcessEnv): TokenConfig[] {
  return Object.entries(raw).map(([name, t]) => {
    const tok = t as { api_key: string; scopes: { role: Role }[] };
    if (tok.scopes.length !== 1) throw new ConfigError(`exactly one scope must be provided for token "${name}"`);
    const apiKey = expandEnv(tok.api_key, env);
    if (!apiKey) throw new ConfigError(`token "${name}": no API key (after env expansion)`);
    return { name, apiKey, role: tok.scopes[0]!.role };
  });
}

function databaseOf(raw: Obj | undefined, env: NodeJS.ProcessEnv): DatabaseConfig | undefined {
  const sql = raw?.sql as { driver?: string; dsn?: string } | undefined;
  if (!sql) return undefined;
  const driver = sql.driver === 'postgres' || sql.driver === 'pgx' || sql.driver === 'postgresql' ? 'postgres' : 'sqlite';
  const dsn = sql.dsn ? expandEnv(sql.dsn, env) : undefined;
  if (driver === 'postgres' && !dsn) throw new ConfigError('configuration error: database.sql.dsn is required for postgres');
  return { driver, dsn };
}

/** Expand env vars in the top-level string values of each datasource's config. */
function expandDatasources(s: SourceDef, env: NodeJS.ProcessEnv): SourceDef {
  for (const d of s.datasources ?? []) {
    if (!d.config) continue;
    for (const [k, v] of Object.entries(d.config)) if (typeof v === 'string') (d.config as Obj)[k] = expandEnv(v, env);
  }
  return s;
}

/** Validate and normalise a raw (merged) configuration document. */
export function parseConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  const doc = raw ?? {};
  if (!validateConfig(doc)) {
    throw new ConfigError(`configuration validation error:\n${formatSchemaErrors(validateConfig.errors)}`);
  }
  const c = doc as Obj;
  const entries = (k: string): [string, unknown][] =>
    Object.entries((c[k] as Obj | undefined) ?? {}).sort(([a], [b]) => cmp(a, b));
  try {
    const service = c.service as { api_prefix?: string } | undefined;
    const prefix = service?.api_prefix ?? '';
    const metrics = c.metrics as MetricsConfig | undefined;
    validateMetricsConfig(metrics);
    return {
      bundles: entries('bundles').map(([n, b]) => toBundleDef(b, n)),
      sources: sortSources(entries('sources').map(([n, s]) => expandDatasources(toSourceDef(s, n), env))),
      stacks: entries('stacks').map(([n, s]) => toStackDef(s, n)),
      secrets: entries('secrets').map(([n, s]) => ({ name: n, value: secretValueOf(s, `secret "${n}"`) })),
      tokens: tokensOf((c.tokens as Obj | undefined) ?? {}, env),
      database: databaseOf(c.database as Obj | undefined, env),
      apiPrefix: prefix === '/' ? '' : prefix,
      ...(metrics ? { metrics } : {}),
      ...(c.fleet ? { fleet: fleetConfigOf(c.fleet as Obj) } : {}),
    };
  } catch (e) {
    if (e instanceof InvalidParameter) throw new ConfigError(`configuration error: ${e.message}`);
    throw e;
  }
}

/** Parse configuration text (YAML or JSON). */
export function parseConfigText(text: string, env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  let doc: unknown;
  try {
    doc = loadYAML(text);
  } catch (e) {
    throw new ConfigError(`configuration: ${(e as Error).message}`);
  }
  return parseConfig(doc, env);
}

/** Read, merge, validate and normalise configuration files or directories. */
export function loadConfigFiles(paths: string[], env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  return parseConfig(readConfigFiles(paths), env);
}
