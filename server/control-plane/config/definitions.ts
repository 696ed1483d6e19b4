// Turns untrusted objects (API bodies, configuration entries) into definitions:
// schema check (schema.ts), then a normaliser that copies only known fields, then
// semantic checks the schema cannot express (exactly one object-storage variant).
// Every failure is an InvalidParameter whose message names the field, never a value.
import { InvalidParameter } from '../errors.js';
import type {
  BundleDef,
  Datasource,
  GitOrigin,
  ObjectStorage,
  Requirement,
  SecretValue,
  SourceDef,
  StackDef,
} from '../types.js';
import { formatSchemaErrors, validateApi } from './schema.js';

type Obj = Record<string, unknown>;

/** Copy the listed keys of `from` whose value is not undefined/null. */
function pick<T>(from: Obj, keys: readonly string[]): T {
  const out: Obj = {};
  for (const k of keys) if (from[k] !== undefined && from[k] !== null) out[k] = from[k];
  return out as T;
}

function requirementsOf(v: unknown): Requirement[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.map((r: Obj) => {
    const req = pick<Requirement & Obj>(r, ['source', 'path', 'prefix', 'automount']);
    if (r.git && typeof r.git === 'object') req.git = pick<{ commit: string }>(r.git as Obj, ['commit']);
    return req;
  });
}

const STORAGE_VARIANTS = {
  filesystem: ['path'],
  aws: ['bucket', 'key', 'region', 'credentials', 'url'],
  gcp: ['project', 'bucket', 'object', 'credentials'],
  azure: ['account_url', 'container', 'path', 'credentials'],
} as const;

function objectStorageOf(v: Obj, kindName: string): ObjectStorage {
  const present = (Object.keys(STORAGE_VARIANTS) as (keyof typeof STORAGE_VARIANTS)[]).filter((k) => v[k] != null);
  if (present.length !== 1) {
    throw new InvalidParameter(
      `${kindName}: object_storage must have exactly one of ${Object.keys(STORAGE_VARIANTS).join(', ')}`,
    );
  }
  const variant = present[0]!;
  return { [variant]: pick(v[variant] as Obj, STORAGE_VARIANTS[variant]) } as ObjectStorage;
}

function check(kind: keyof typeof validateApi, body: unknown, label: string): Obj {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidParameter(`${label}: body must be a JSON object`);
  }
  const validate = validateApi[kind];
  if (!validate(body)) throw new InvalidParameter(`${label}: invalid body\n${formatSchemaErrors(validate.errors)}`);
  return body as Obj;
}

/**
 * Resolve the definition name: the body's `name`, when present, must equal the
 * path (or configuration key) name.
 */
function nameOf(body: Obj, name: string, kind: string): string {
  if (body.name !== undefined && body.name !== null && body.name !== name) {
    throw new InvalidParameter(`${kind} name must match path`);
  }
  return name;
}

export function toBundleDef(body: unknown, name: string): BundleDef {
  const b = check('bundle', body, `bundle "${name}"`);
  const def: BundleDef & Obj = { name: nameOf(b, name, 'bundle') };
  Object.assign(def, pick(b, ['labels', 'revision', 'excluded_files', 'rebuild_interval']));
  if (b.object_storage) def.object_storage = objectStorageOf(b.object_storage as Obj, `bundle "${name}"`);
  const reqs = requirementsOf(b.requirements);
  if (reqs) def.requirements = reqs;
  if (b.options && typeof b.options === 'object') {
    const o = b.options as Obj;
    const options: Obj = pick(o, ['no_default_stack_mount', 'target']);
    if (o.optimization && typeof o.optimization === 'object') options.optimization = pick(o.optimization as Obj, ['level']);
    def.options = options;
  }
  return def;
}

function datasourceOf(d: Obj): Datasource {
  return pick<Datasource>(d, ['name', 'path', 'type', 'config', 'credentials', 'transform_query']);
}

export function toSourceDef(body: unknown, name: string): SourceDef {
  const s = check('source', body ?? {}, `source "${name}"`);
  const def: SourceDef & Obj = { name: nameOf(s, name, 'source') };
  Object.assign(def, pick(s, ['builtin', 'directory', 'paths', 'files']));
  if (s.git) {
    def.git = pick<GitOrigin>(s.git as Obj, [
      'repo',
      'reference',
      'commit',
      'path',
      'included_files',
      'excluded_files',
      'credentials',
    ]);
  }
  if (Array.isArray(s.datasources)) def.datasources = (s.datasources as Obj[]).map(datasourceOf);
  const reqs = requirementsOf(s.requirements);
  if (reqs) def.requirements = reqs;
  return def;
}

export function toStackDef(body: unknown, name: string): StackDef {
  const s = check('stack', body, `stack "${name}"`);
  const def: StackDef = { name: nameOf(s, name, 'stack'), selector: (s.selector as StackDef['selector']) ?? {} };
  if (s.exclude_selector) def.exclude_selector = s.exclude_selector as StackDef['exclude_selector'];
  const reqs = requirementsOf(s.requirements);
  if (reqs) def.requirements = reqs;
  return def;
}

/**
 * A secret PUT body: `{name?, value: {type, ...}}` (control-plane-api.md §2.6).
 * A body without `value` but with `type` is taken as the value itself (the
 * reference's wire form). `{}` or a null value stores an unconfigured secret.
 */
export function toSecretValue(body: unknown, name: string): SecretValue | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidParameter(`secret "${name}": body must be a JSON object`);
  }
  const b = body as Obj;
  nameOf(b, name, 'secret');
  let value: unknown;
  if ('value' in b) value = b.value;
  else if ('type' in b) value = Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'name'));
  else value = null;
  if (value === null || value === undefined) return null;
  return secretValueOf(value, `secret "${name}"`);
}

/** Validate a secret value object (`type` must be a string when present). */
export function secretValueOf(value: unknown, label: string): SecretValue | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidParameter(`${label}: value must be an object`);
  if (!validateApi.secret(value)) throw new InvalidParameter(`${label}: value.type must be a string`);
  if (Object.keys(value).length === 0) return null;
  return value as SecretValue;
}

/** Names of sources a definition requires (requirements with a `source`). */
export function requiredSources(def: { requirements?: Requirement[] }): string[] {
  return [...new Set((def.requirements ?? []).map((r) => r.source).filter((s): s is string => !!s))];
}

/** Secret names a bundle needs (object-storage credentials): these must exist. */
export function bundleSecrets(def: BundleDef): string[] {
  const os = def.object_storage;
  const names = [os?.aws?.credentials, os?.gcp?.credentials, os?.azure?.credentials];
  return [...new Set(names.filter((s): s is string => !!s))];
}

/** Secret names a source mentions (git and datasource credentials): may be defined later. */
export function sourceSecrets(def: SourceDef): string[] {
  const names = [def.git?.credentials, ...(def.datasources ?? []).map((d) => d.credentials)];
  return [...new Set(names.filter((s): s is string => !!s))];
}
