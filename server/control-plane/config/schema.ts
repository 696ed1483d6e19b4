// JSON Schemas of the control plane's definitions and configuration file
// (control-plane-behaviors.md §2.2). One builder produces two variants: `strict`
// for configuration files (unknown keys are errors, as in the reference's
// additionalProperties:false) and lenient for API bodies (unknown keys are ignored;
// the normalisers in definitions.ts then copy only known fields).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ROLES } from '../types.js';

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const strList: Schema = { type: 'array', items: str };
const strMap: Schema = { type: 'object', additionalProperties: str };
const selector: Schema = { type: 'object', additionalProperties: strList };

function obj(properties: Record<string, Schema>, strict: boolean, required: string[] = []): Schema {
  const s: Schema = { type: 'object', properties };
  if (required.length) s.required = required;
  if (strict) s.additionalProperties = false;
  return s;
}

/** Schemas of the four definition kinds (name included, optional). */
export function definitionSchemas(strict: boolean): Record<'bundle' | 'source' | 'stack' | 'secret', Schema> {
  const requirement = obj(
    {
      source: str,
      path: str,
      prefix: str,
      automount: { type: 'boolean' },
      git: obj({ commit: str }, strict),
    },
    strict,
  );
  const requirements: Schema = { type: ['array', 'null'], items: requirement };
  const objectStorage: Schema = {
    type: 'object',
    properties: {
      filesystem: obj({ path: str }, false, ['path']),
      aws: obj({ bucket: str, key: str, region: str, credentials: str, url: str }, false, ['bucket', 'key', 'region']),
      gcp: obj({ project: str, bucket: str, object: str, credentials: str }, false, ['project', 'bucket', 'object']),
      azure: obj({ account_url: str, container: str, path: str, credentials: str }, false, [
        'account_url',
        'container',
        'path',
      ]),
    },
  };
  const options = obj(
    {
      no_default_stack_mount: { type: 'boolean' },
      target: { enum: ['rego', 'ir', 'plan', 'wasm'] },
      optimization: obj({ level: { enum: [0, 1, 2] } }, strict),
    },
    strict,
  );
  const bundle = obj(
    {
      name: str,
      labels: strMap,
      revision: str,
      object_storage: objectStorage,
      requirements,
      excluded_files: strList,
      rebuild_interval: str,
      options,
    },
    strict,
  );
  const git = obj(
    {
      repo: str,
      reference: str,
      commit: str,
      path: str,
      included_files: strList,
      excluded_files: strList,
      credentials: str,
    },
    strict,
    ['repo'],
  );
  const datasource = obj(
    {
      name: str,
      path: str,
      type: str,
      transform_query: str,
      config: { type: 'object' },
      credentials: str,
    },
    strict,
    ['name'],
  );
  // Sources are never strict: the reference silently ignores unknown source keys.
  const source = obj(
    {
      name: str,
      builtin: str,
      git,
      datasources: { type: 'array', items: datasource },
      files: strMap,
      directory: str,
      paths: strList,
      requirements,
    },
    false,
  );
  const stack = obj({ name: str, selector, exclude_selector: selector, requirements }, strict);
  const secret: Schema = { type: 'object', properties: { type: str } };
  return { bundle, source, stack, secret };
}

/** Schema of a whole configuration file (after merging). */
export function configSchema(): Schema {
  const defs = definitionSchemas(true);
  const token = obj(
    { api_key: str, scopes: { type: 'array', items: obj({ role: { enum: [...ROLES] } }, true, ['role']) } },
    true,
    ['api_key', 'scopes'],
  );
  const database = obj(
    { sql: obj({ driver: { enum: ['sqlite', 'sqlite3', 'postgres', 'pgx', 'postgresql'] }, dsn: str, credentials: str }, true) },
    true,
  );
  const service = obj({ api_prefix: { type: 'string', pattern: '^/([^/].*[^/])?$' } }, true);
  // metrics: `enabled`, and per area `enabled` plus one entry per metric (`enabled`, `buckets_seconds`).
  const bool: Schema = { type: 'boolean' };
  const metric = obj({ enabled: bool, buckets_seconds: { type: 'array', items: { type: 'number' } } }, true);
  const area = (...names: string[]): Schema => obj({ enabled: bool, ...Object.fromEntries(names.map((n) => [n, metric])) }, true);
  const metrics = obj(
    {
      enabled: bool,
      http: area('request_duration'),
      gitsync: area('git_sync_duration', 'git_sync_count'),
      worker: area('bundle_build_duration', 'bundle_build_count'),
      database: area('database_query_duration', 'database_query_count'),
    },
    true,
  );
  // fleet (Regent extension): Go durations for engine status reports (fleet/).
  const fleet = obj({ stale_after: str, forget_after: str }, true);
  const mapOf = (s: Schema): Schema => ({ type: 'object', additionalProperties: s });
  return obj(
    {
      bundles: mapOf(defs.bundle),
      sources: mapOf({ anyOf: [defs.source, { type: 'null' }] }),
      stacks: mapOf(defs.stack),
      secrets: mapOf(defs.secret),
      tokens: mapOf(token),
      database,
      service,
      metrics,
      fleet,
      metadata: { type: 'object' },
    },
    true,
  );
}

/** Render ajv errors as `- at '<pointer>': <message>` lines (values are never included). */
export function formatSchemaErrors(errors: ErrorObject[] | null | undefined): string {
  const lines = (errors ?? []).map((e) => {
    let msg = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') msg += `: ${JSON.stringify(e.params.additionalProperty)}`;
    if (e.keyword === 'enum') msg += `: ${JSON.stringify(e.params.allowedValues)}`;
    return `- at '${e.instancePath || '/'}': ${msg}`;
  });
  return [...new Set(lines)].join('\n');
}

const lenient = new Ajv({ allErrors: false, strict: false });
const strictAjv = new Ajv({ allErrors: true, strict: false });

const apiSchemas = definitionSchemas(false);
export const validateApi: Record<keyof typeof apiSchemas, ValidateFunction> = {
  bundle: lenient.compile(apiSchemas.bundle),
  source: lenient.compile(apiSchemas.source),
  stack: lenient.compile(apiSchemas.stack),
  secret: lenient.compile(apiSchemas.secret),
};

export const validateConfig: ValidateFunction = strictAjv.compile(configSchema());
