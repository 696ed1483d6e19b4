// From assembled files to a bundle: every `.rego` file is compiled together with
// our compiler (errors fail the build as `build: N error(s) occurred: …`, OPA's
// text), every data file (`.json`, `.yaml`, `.yml`) is merged into the base
// document at its directory, the manifest gets revision, roots and rego_version,
// every module is then printed as OPA's compile step prints the modules of a
// bundle (FormatModules: the formatter, respecting each module's `import
// rego.v1`; a module the formatter cannot print stays as written), and the
// bundle is written as a deterministic tar.gz in the layout of OPA's bundle
// writer: `/data.json` and `/.manifest` are Go json.Encoder output (sorted
// keys, HTML escaping, a trailing newline), modules sorted by path in between.
import { load as loadYAML } from 'js-yaml';
import { compile, parseModule, RegoErrors } from '../../../compiler/index.js';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { fromJS, tarEntries, type Bundle } from '../../../runtime/index.js';
import type { Assembled } from './assemble.js';
import { BuildError, messageOf } from './errors.js';
import { bytesText, dirOf, isDataFile, isRegoFile } from './files.js';
import { formatRegoErrors, goJSON, JSONNumber, parseJSONExact } from './gotext.js';
import { v1Hint } from './rego-version.js';
import { formatAsOPA } from './mounts.js';

export { formatRegoErrors };

const gzip = promisify(gzipCb);

export interface BuiltBundle {
  bundle: Bundle;
  bytes: Buffer;
}

type Obj = Record<string, unknown>;

export async function buildBundle(a: Assembled, revision: string): Promise<BuiltBundle> {
  const paths = [...a.files.keys()].sort();
  const modules = paths.filter(isRegoFile).map((p) => ({ path: '/' + p, text: bytesText(a.files.get(p)!) }));
  try {
    compile(modules.map((m) => ({ file: m.path, text: m.text })), { v0Compatible: a.regoVersion === 0 });
  } catch (e) {
    if (e instanceof RegoErrors) throw new BuildError(`build: ${formatRegoErrors(e)}${v1Hint(e, modules, a.regoVersion)}`);
    throw new BuildError(`build: ${messageOf(e)}`);
  }
  const printed = modules.map((m) => ({ path: m.path, text: formatted(m.text, m.path, a.regoVersion === 0) }));
  // The first path segment is the source directory, not part of the data path.
  const data = mergeDataFiles([...a.files], (p) => p.slice(p.indexOf('/') + 1), true);
  const dataJSON = goJSON(data);
  const bundle: Bundle = {
    manifest: { revision, roots: a.roots, rego_version: a.regoVersion },
    modules: printed,
    data: fromJS(JSON.parse(dataJSON)),
  };
  const manifest = `{"revision":${goJSON(revision)},"roots":${goJSON(a.roots)},"rego_version":${a.regoVersion}}\n`;
  const entries = [
    { path: '/data.json', bytes: Buffer.from(dataJSON + '\n') },
    ...printed.map((m) => ({ path: m.path, bytes: Buffer.from(m.text) })),
    { path: '/.manifest', bytes: Buffer.from(manifest) },
  ];
  return { bundle, bytes: await gzip(await tarEntries(entries), { level: 9 }) };
}

/** One module as OPA prints it into a bundle; the text as written if that fails. */
function formatted(text: string, path: string, v0: boolean): string {
  try {
    const out = formatAsOPA(parseModule(text, path, { v0Compatible: v0 }), text, v0);
    parseModule(out, path, { v0Compatible: v0 });
    return out;
  } catch {
    return text;
  }
}

/**
 * Merge every data file into one document, each at its directory (`rel` maps a
 * file to its data-relative path). `exact`: JSON numbers stay JSONNumbers (their
 * text, as OPA keeps json.Number), for writing data.json.
 */
export function mergeDataFiles(files: [string, Uint8Array][], rel: (path: string) => string = (p) => p, exact = false): Obj {
  const data: Obj = {};
  const sorted = files.filter(([p]) => isDataFile(p)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [p, b] of sorted) {
    const segs = dirOf(rel(p)).split('/').filter((s) => s !== '');
    mergeAt(data, segs, parseDataFile(p, bytesText(b), exact), p);
  }
  return data;
}

function parseDataFile(path: string, text: string, exact: boolean): unknown {
  try {
    if (path.endsWith('.json')) return exact ? parseJSONExact(text) : JSON.parse(text);
    return loadYAML(text);
  } catch (e) {
    throw new BuildError(`build: ${path}: ${messageOf(e)}`);
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JSONNumber);
}

/** Merge `value` at `segs` into `root`; two non-object values at one path conflict. */
function mergeAt(root: Obj, segs: string[], value: unknown, file: string): void {
  if (segs.length === 0) {
    if (!isObj(value)) throw new BuildError(`build: ${file}: root data document must be an object`);
    mergeObj(root, value, file, []);
    return;
  }
  let cur = root;
  for (const s of segs.slice(0, -1)) {
    const next = cur[s];
    if (next === undefined) cur[s] = {};
    else if (!isObj(next)) throw new BuildError(`build: ${file}: merge error: conflicting data at /${segs.join('/')}`);
    cur = cur[s] as Obj;
  }
  mergeObj(cur, { [segs[segs.length - 1]!]: value }, file, segs.slice(0, -1));
}

function mergeObj(dst: Obj, src: Obj, file: string, at: string[]): void {
  for (const [k, v] of Object.entries(src)) {
    const d = dst[k];
    if (d === undefined) dst[k] = v;
    else if (isObj(d) && isObj(v)) mergeObj(d, v, file, [...at, k]);
    else throw new BuildError(`build: ${file}: merge error: conflicting data at /${[...at, k].join('/')}`);
  }
}
