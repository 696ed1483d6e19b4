// Loading policies and data from the file system, as OPA's loader does for
// `-d/--data` and `-b/--bundle`:
//   - a .rego file is a module (its name is the path as given);
//   - a .json/.yaml/.yml file is data; inside a directory it is merged into `data`
//     at the path of its directory relative to the root given on the command line
//     (root/a/b/x.json → data.a.b), a file named directly goes to the root; a
//     `prefix.path:FILE` argument puts the file's content under data.prefix.path;
//   - objects merge deeply; two different non-object values at one path conflict;
//   - a bundle directory reads `.manifest` (JSON) and only data.json/data.yaml files;
//     a bundle archive (`bundle.tar.gz`, with -b or -d) goes through runtime/bundles
//     (loadAll).
// Bad data files fail with OPA's loader wording: `x.json: invalid character '}'
// looking for beginning of value` (Go's JSON errors), `x.yaml: error converting
// YAML to JSON: yaml: line 2: …`; no JavaScript parser text reaches the user.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { loadYAML } from '../runtime/value/yaml-lib.js';
import type { SourceFile } from '../compiler/api.js';
import { RObject, equal, fromJS, parseJSON, type Value } from '../runtime/value/index.js';
import { goJSONError } from '../runtime/value/go-json.js';
import { BundleError } from '../runtime/bundles/errors.js';

export class LoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoadError';
  }
}

/** An input document that cannot be read or parsed (`opa eval` prints these plainly on stderr). */
export class InputError extends LoadError {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
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

/** JSON text as a Value; Go's error text (OPA's util.UnmarshalJSON) when it does not parse. */
export function parseJSONText(text: string): Value {
  try {
    return parseJSON(text);
  } catch (e) {
    const goError = goJSONError(text, 'unmarshal');
    if (goError !== '') throw new LoadError(goError);
    // Valid for Go, but too deep for the recursive conversion.
    if (e instanceof RangeError) return fromJSDeep(JSON.parse(text));
    throw new LoadError('invalid JSON document');
  }
}

/** fromJS without recursion, for documents nested thousands of levels deep. */
function fromJSDeep(root: unknown): Value {
  const isComposite = (x: unknown): x is object => x !== null && typeof x === 'object' && !(x instanceof Date);
  if (!isComposite(root)) return fromJS(root);
  const convert = (x: object): Value[] | RObject => (Array.isArray(x) ? [] : new RObject());
  const top = convert(root);
  const stack: { src: object; dst: Value[] | RObject }[] = [{ src: root, dst: top }];
  while (stack.length > 0) {
    const { src, dst } = stack.pop()!;
    for (const [k, v] of Object.entries(src)) {
      const out = isComposite(v) ? convert(v) : fromJS(v);
      if (isComposite(v)) stack.push({ src: v, dst: out as Value[] | RObject });
      if (Array.isArray(dst)) dst[Number(k)] = out;
      else dst.set(k, out);
    }
  }
  return top;
}

/** go-yaml's wording for a js-yaml failure: `yaml: line N: reason`. */
function yamlError(e: unknown): string {
  const y = e as { reason?: unknown; mark?: { line?: number } };
  if (e instanceof RangeError || (typeof y?.reason === 'string' && /maxDepth/.test(y.reason))) return 'yaml: exceeded max depth of 10000';
  if (typeof y?.reason === 'string') return `yaml: ${y.mark?.line !== undefined ? `line ${y.mark.line + 1}: ` : ''}${y.reason}`;
  return `yaml: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
}

/** YAML text as a Value; OPA's `error converting YAML to JSON: yaml: …` when it does not parse. */
export function parseYAMLText(text: string): Value {
  let doc: unknown;
  try {
    doc = loadYAML(text, { maxDepth: 10_000 });
  } catch (e) {
    throw new LoadError(`error converting YAML to JSON: ${yamlError(e)}`);
  }
  try {
    return fromJS(doc ?? null);
  } catch (e) {
    if (e instanceof RangeError) return fromJSDeep(doc);
    throw e;
  }
}

/** Parse a JSON or YAML data document (by extension) into a Value, errors prefixed by the path. */
export function parseDataFile(path: string, text: string): Value {
  const ext = extname(path).toLowerCase();
  try {
    if (ext === '.json') return text.trim() === '' ? new RObject() : parseJSONText(text);
    const v = parseYAMLText(text);
    return v === null ? new RObject() : v;
  } catch (e) {
    throw new LoadError(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * An input document, as `opa eval -i/-I` reads it: YAML (a superset of JSON)
 * whatever the file is called; JSON text is read exactly (big numbers kept). Empty
 * text is `null`. Errors read `unable to parse input: …`.
 */
export function parseInput(text: string): Value {
  if (text.trim() === '') return null;
  try {
    if (goJSONError(text, 'unmarshal') === '') return parseJSONText(text);
    return parseYAMLText(text);
  } catch (e) {
    throw new InputError(`unable to parse input: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Read `-i FILE`: `open FILE: no such file or directory` when missing. */
export function readInputFile(path: string): Value {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new InputError(`open ${path}: ${code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(e)}`);
  }
  return parseInput(text);
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
 * The `--ignore` test of every command (OPA's GlobExcludeName(pattern, 1)): a path
 * below a given root (`/`-separated) is left out when any of its segments matches
 * one of the globs. Paths named on the command line are never left out.
 */
export function ignoredPath(globs: string[]): (relPath: string) => boolean {
  const patterns = globs.map(globToRegExp);
  return (relPath) => patterns.length > 0 && relPath.split('/').some((seg) => seg !== '' && patterns.some((re) => re.test(seg)));
}

/** A path as a bundle path: `/`-separated, leading `/`, no `.`/`..` segments. */
export function bundlePath(file: string): string {
  return '/' + file.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.' && s !== '..').join('/');
}

/** The files below directory `root`, without those `ignored` leaves out. */
export function walkKept(root: string, ignored: (relPath: string) => boolean): string[] {
  const files = walk(root);
  return files.filter((f) => !ignored(relative(root, f).split(sep).join('/')));
}

/** The .rego files at the given paths (files or directories, recursively), less the `ignore`d ones. */
export function findRegoFiles(paths: string[], ignore: string[] = []): string[] {
  const ignored = ignoredPath(ignore);
  const out: string[] = [];
  for (const p of paths) {
    if (!existsSync(p)) throw new LoadError(`stat ${p}: no such file or directory`);
    if (statSync(p).isDirectory()) out.push(...walkKept(p, ignored).filter((f) => f.endsWith('.rego')));
    else out.push(p);
  }
  return out;
}

function dirSegments(root: string, file: string): string[] {
  const rel = relative(root, file).split(sep);
  rel.pop();
  return rel.filter((s) => s !== '' && s !== '.');
}

/** Load `-d` paths and `-b` bundle directories, less the files `--ignore` globs leave out. */
export function loadPaths(dataPaths: string[], bundlePaths: string[] = [], ignore: string[] = []): Loaded {
  const ignored = ignoredPath(ignore);
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
      for (const f of walkKept(path, ignored)) addFile(f, [...prefix, ...dirSegments(path, f)], false);
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
    for (const f of walkKept(dir, ignored)) addFile(f, dirSegments(dir, f), true);
  }
  return result;
}

/** A `bundle.tar.gz` path (anything given to -b that is a file, not a directory). */
function isArchive(path: string): boolean {
  return existsSync(path) && !statSync(path).isDirectory();
}

/**
 * Load `-d` paths and `-b` bundles, directories or archives. Archives are read by
 * runtime/bundles (signatures skipped, as `opa eval` does); their modules are
 * named by their bundle path (`/x/policy.rego`) and keep the manifest's rego
 * version; their data merges at the root. `ignore`: as loadPaths (archives are read whole).
 */
export async function loadAll(dataPaths: string[], bundlePaths: string[], opts: { v0Compatible?: boolean; ignore?: string[] } = {}): Promise<Loaded> {
  // `-d x.tar.gz` loads the archive as a bundle too (OPA's loader), under its prefix.
  const dataArchives = dataPaths.filter((a) => splitPrefix(a).path.endsWith('.tar.gz') && isArchive(splitPrefix(a).path));
  const bundleArchives = bundlePaths.filter(isArchive);
  const result = loadPaths(
    dataPaths.filter((a) => !dataArchives.includes(a)),
    bundlePaths.filter((p) => !bundleArchives.includes(p)),
    opts.ignore,
  );
  const archives = [...dataArchives.map((a) => splitPrefix(a)), ...bundleArchives.map((path) => ({ prefix: [] as string[], path }))];
  for (const { prefix, path } of archives) {
    let bundle;
    try {
      const { readBundle } = await import('../runtime/bundles/index.js'); // only for -b archives
      bundle = await readBundle(readFileSync(path), { skipVerify: true, defaultRegoVersion: opts.v0Compatible ? 0 : 1 });
    } catch (e) {
      if (e instanceof BundleError) throw new LoadError(`bundle ${path}: ${e.message}`);
      throw e;
    }
    for (const m of bundle.modules) result.modules.push({ file: m.path, text: m.text, ...(m.regoVersion !== undefined ? { v0Compatible: m.regoVersion === 0 } : {}) });
    if (bundle.data instanceof RObject && bundle.data.size > 0) mergeAt(result.data, prefix, bundle.data, path);
    result.manifests[path] = bundle.manifest;
  }
  return result;
}
