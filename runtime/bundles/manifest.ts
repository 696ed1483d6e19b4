// The bundle `.manifest`: decoding with OPA's type rules (a Go struct decode, so
// unknown keys are ignored and wrong types fail), the "empty manifest" test that
// decides whether a writer emits the file, canonical serialization, and the
// per-file Rego version lookup (`rego_version` overridden by the first matching
// `file_rego_versions` glob, globs in gobwas/glob syntax without separators).
import type { BundleManifest } from './types.js';
import { BundleError } from './errors.js';

const GO_TYPE: Record<string, string> = { string: 'string', number: 'number', boolean: 'bool', object: 'object' };

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  return GO_TYPE[typeof v] ?? 'object';
}

function typeError(v: unknown, field: string, goType: string): BundleError {
  return new BundleError('manifest', `bundle load failed on manifest decode: json: cannot unmarshal ${jsonType(v)} into Go struct field Manifest.${field} of type ${goType}`);
}

/** Decode `.manifest` text. Unknown keys are dropped, as OPA's struct decode does. */
export function parseManifest(text: string): BundleManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new BundleError('manifest', `bundle load failed on manifest decode: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw typeError(raw, '', 'bundle.Manifest');
  const o = raw as Record<string, unknown>;
  const m: BundleManifest = {};
  if (o.revision !== undefined && o.revision !== null) {
    if (typeof o.revision !== 'string') throw typeError(o.revision, 'revision', 'string');
    m.revision = o.revision;
  }
  if (o.roots !== undefined && o.roots !== null) {
    if (!Array.isArray(o.roots)) throw typeError(o.roots, 'roots', '[]string');
    for (const r of o.roots) if (typeof r !== 'string') throw typeError(r, 'roots', 'string');
    m.roots = o.roots as string[];
  }
  if (o.rego_version !== undefined && o.rego_version !== null) {
    if (typeof o.rego_version !== 'number' || !Number.isInteger(o.rego_version)) throw typeError(o.rego_version, 'rego_version', 'int');
    m.rego_version = o.rego_version;
  }
  if (o.file_rego_versions !== undefined && o.file_rego_versions !== null) {
    const f = o.file_rego_versions;
    if (typeof f !== 'object' || Array.isArray(f)) throw typeError(f, 'file_rego_versions', 'map[string]int');
    for (const v of Object.values(f as object)) {
      if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError(v, 'file_rego_versions', 'int');
    }
    m.file_rego_versions = { ...(f as Record<string, number>) };
  }
  if (o.metadata !== undefined && o.metadata !== null) {
    if (typeof o.metadata !== 'object' || Array.isArray(o.metadata)) throw typeError(o.metadata, 'metadata', 'map[string]interface {}');
    m.metadata = o.metadata as Record<string, unknown>;
  }
  if (o.wasm !== undefined && o.wasm !== null) {
    if (!Array.isArray(o.wasm)) throw typeError(o.wasm, 'wasm', '[]bundle.WasmResolver');
    m.wasm = o.wasm;
  }
  return m;
}

/** True when the manifest says nothing beyond the defaults (OPA does not write it). */
export function manifestIsEmpty(m: BundleManifest): boolean {
  const roots = new Set(m.roots ?? ['']);
  return (
    (m.revision ?? '') === '' &&
    m.rego_version === undefined &&
    Object.keys(m.file_rego_versions ?? {}).length === 0 &&
    m.metadata === undefined &&
    (m.wasm ?? []).length === 0 &&
    roots.size === 1 &&
    roots.has('')
  );
}

/** JSON text with object keys sorted recursively (Go's map encoding). */
export function stableJSON(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return '[' + v.map(stableJSON).join(',') + ']';
  const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + stableJSON((v as Record<string, unknown>)[k])).join(',') + '}';
}

/** The manifest as OPA writes it: struct field order, empty fields omitted, `revision` always. */
export function manifestToJSON(m: BundleManifest): string {
  const parts = [`"revision":${JSON.stringify(m.revision ?? '')}`];
  if (m.roots !== undefined) parts.push(`"roots":${stableJSON(m.roots)}`);
  if (m.wasm !== undefined && m.wasm.length > 0) parts.push(`"wasm":${stableJSON(m.wasm)}`);
  if (m.rego_version !== undefined) parts.push(`"rego_version":${m.rego_version}`);
  if (m.file_rego_versions !== undefined && Object.keys(m.file_rego_versions).length > 0) parts.push(`"file_rego_versions":${stableJSON(m.file_rego_versions)}`);
  if (m.metadata !== undefined && Object.keys(m.metadata).length > 0) parts.push(`"metadata":${stableJSON(m.metadata)}`);
  return '{' + parts.join(',') + '}';
}

/** Compile a gobwas/glob pattern (no separators: `*` crosses `/`) to a RegExp. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  let depth = 0; // inside {a,b}
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]!);
    else if (c === '*') {
      while (pattern[i + 1] === '*') i++;
      re += '[\\s\\S]*';
    } else if (c === '?') re += '[\\s\\S]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) throw new BundleError('manifest', `failed to compile glob pattern ${pattern}: unexpected end of input`);
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      re += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, (x) => '\\' + x)}]`;
      i = end;
    } else if (c === '{') {
      depth++;
      re += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      re += ')';
    } else if (c === ',' && depth > 0) re += '|';
    else re += escapeRe(c);
  }
  if (depth !== 0) throw new BundleError('manifest', `failed to compile glob pattern ${pattern}: unexpected end of input`);
  return new RegExp(`^${re}$`);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The Rego version for a bundle file (path as it appears in the bundle, e.g.
 * `/a/b.rego`): the first `file_rego_versions` glob that matches (tried against
 * the path with and without its leading slash), else the manifest's
 * `rego_version`, else `def`. Throws OPA's error for versions other than 0 and 1.
 */
export function regoVersionForFile(m: BundleManifest, path: string, def: 0 | 1): 0 | 1 {
  let version: number | undefined;
  const bare = path.replace(/^\/+/, '');
  for (const pattern of Object.keys(m.file_rego_versions ?? {}).sort()) {
    const re = globToRegExp(pattern);
    if (re.test(path) || re.test(bare) || re.test('/' + bare)) {
      version = m.file_rego_versions![pattern];
      break;
    }
  }
  if (version === undefined) version = m.rego_version;
  if (version === undefined) return def;
  if (version === 0 || version === 1) return version;
  throw new BundleError('module', `unknown bundle rego-version ${version} for file '${path}'`);
}
