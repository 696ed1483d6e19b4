// Loading policies and data from the file system, as OPA's loader does for
// `-d/--data` and `-b/--bundle`:
//   - a .rego file is a module (its name is the path as given);
//   - a .json/.yaml/.yml file is data; inside a directory it is merged into `data`
//     at the path of its directory relative to the root given on the command line
//     (root/a/b/x.json → data.a.b), a file named directly goes to the root; a
//     `prefix.path:FILE` argument puts the file's content under data.prefix.path;
//   - objects merge deeply; two different non-object values at one path conflict;
//   - a bundle directory reads `.manifest` (JSON) and only data.json/data.yaml files.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { load as loadYAML } from 'js-yaml';
import type { SourceFile } from '../compiler/api.js';
import { RObject, equal, fromJS, parseJSON, type Value } from '../runtime/value/index.js';

export class LoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoadError';
  }
}

export interface Loaded {
  modules: SourceFile[];
  data: RObject;
  /** Bundle manifests read, by bundle directory. */
  manifests: Record<string, unknown>;
  /** True if a bundle manifest asks for Rego v0 (`rego_version: 0`). */
  v0: boolean;
}

const DATA_EXT = new Set(['.json', '.yaml', '.yml']);

/** Parse a JSON or YAML document (by extension) into a Value. */
export function parseDataFile(path: string, text: string): Value {
  const ext = extname(path).toLowerCase();
  try {
    if (ext === '.json') return text.trim() === '' ? new RObject() : parseJSON(text);
    return fromJS(loadYAML(text) ?? {});
  } catch (e) {
    throw new LoadError(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Read a file as data (json or yaml). */
export function readDataFile(path: string): Value {
  if (!existsSync(path)) throw new LoadError(`stat ${path}: no such file or directory`);
  return parseDataFile(path, readFileSync(path, 'utf8'));
}

/** Deep-merge `value` into `target` at `path`. Throws on conflicting leaves. */
export function mergeAt(target: RObject, path: string[], value: Value, origin: string): void {
  if (path.length === 0) {
    if (!(value instanceof RObject)) throw new LoadError(`${origin}: root value must be object`);
    for (const [k, v] of value.entries()) mergeKey(target, k, v, origin);
    return;
  }
  let node = target;
  for (const seg of path.slice(0, -1)) {
    const next = node.get(seg);
    if (next === undefined) {
      const o = new RObject();
      node.set(seg, o);
      node = o;
    } else if (next instanceof RObject) node = next;
    else throw new LoadError(`${origin}: merge error`);
  }
  mergeKey(node, path[path.length - 1]!, value, origin);
}

function mergeKey(node: RObject, key: Value, value: Value, origin: string): void {
  const existing = node.get(key);
  if (existing === undefined) node.set(key, value instanceof RObject ? value.clone() : value);
  else if (existing instanceof RObject && value instanceof RObject) {
    const copy = existing.clone();
    for (const [k, v] of value.entries()) mergeKey(copy, k, v, origin);
    node.set(key, copy);
  } else if (!equal(existing, value)) throw new LoadError(`${origin}: merge error`);
}

/** Split an OPA-style `prefix.path:file` argument; no prefix → [] path. */
export function splitPrefix(arg: string): { prefix: string[]; path: string } {
  const m = /^([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*):(.+)$/.exec(arg);
  if (!m || /^[A-Za-z]:[\\/]/.test(arg) || existsSync(arg)) return { prefix: [], path: arg };
  return { prefix: m[1]!.split('.'), path: m[2]! };
}

/** All files under `dir`, recursively, sorted (dot-files and dot-dirs skipped). */
export function walk(dir: string): string[] {
  const out: string[] = [];
  const rec = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith('.')) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) rec(p);
      else out.push(p);
    }
  };
  rec(dir);
  return out;
}

/** A glob (`*`, `?`) as a whole-string regular expression. */
export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/**
 * The .rego files at the given paths (files or directories, recursively). Files
 * found by walking are left out when any path segment below the root matches one
 * of the `ignore` globs (as `opa check --ignore`).
 */
export function findRegoFiles(paths: string[], ignore: string[] = []): string[] {
  const patterns = ignore.map(globToRegExp);
  const ignored = (root: string, file: string): boolean =>
    patterns.length > 0 && relative(root, file).split(sep).some((seg) => patterns.some((re) => re.test(seg)));
  const out: string[] = [];
  for (const p of paths) {
    if (!existsSync(p)) throw new LoadError(`stat ${p}: no such file or directory`);
    if (statSync(p).isDirectory()) out.push(...walk(p).filter((f) => f.endsWith('.rego') && !ignored(p, f)));
    else out.push(p);
  }
  return out;
}

function dirSegments(root: string, file: string): string[] {
  const rel = relative(root, file).split(sep);
  rel.pop();
  return rel.filter((s) => s !== '' && s !== '.');
}

/** Load `-d` paths and `-b` bundle directories. */
export function loadPaths(dataPaths: string[], bundlePaths: string[] = []): Loaded {
  const result: Loaded = { modules: [], data: new RObject(), manifests: {}, v0: false };
  const addFile = (file: string, dataPath: string[], bundle: boolean): void => {
    const ext = extname(file).toLowerCase();
    if (ext === '.rego') result.modules.push({ file, text: readFileSync(file, 'utf8') });
    else if (DATA_EXT.has(ext)) {
      const base = file.split(sep).pop()!.toLowerCase();
      if (bundle && !/^data\.(json|ya?ml)$/.test(base)) return;
      mergeAt(result.data, dataPath, readDataFile(file), file);
    }
  };
  for (const arg of dataPaths) {
    const { prefix, path } = splitPrefix(arg);
    if (!existsSync(path)) throw new LoadError(`stat ${path}: no such file or directory`);
    if (statSync(path).isDirectory()) {
      for (const f of walk(path)) addFile(f, [...prefix, ...dirSegments(path, f)], false);
    } else {
      const ext = extname(path).toLowerCase();
      if (ext !== '.rego' && !DATA_EXT.has(ext)) throw new LoadError(`${path}: unsupported file type (want .rego, .json, .yaml or .yml)`);
      addFile(path, prefix, false);
    }
  }
  for (const dir of bundlePaths) {
    if (!existsSync(dir)) throw new LoadError(`stat ${dir}: no such file or directory`);
    if (!statSync(dir).isDirectory()) throw new LoadError(`${dir}: bundle must be a directory (archives are not supported yet)`);
    const manifestPath = join(dir, '.manifest');
    if (existsSync(manifestPath)) {
      const manifest = readDataFile(manifestPath); // JSON, read with the YAML parser (a superset)
      result.manifests[dir] = manifest;
      if (manifest instanceof RObject && manifest.get('rego_version') === 0) result.v0 = true;
    }
    for (const f of walk(dir)) addFile(f, dirSegments(dir, f), true);
  }
  return result;
}
