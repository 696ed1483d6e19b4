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
import { addWasmModule, annotatedEntrypoints, annotationValue, compile, parseModule, RegoErrors, type CompiledPolicy } from '../../../compiler/index.js';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { fromJS, tarEntries, type Bundle } from '../../../runtime/index.js';
import type { Assembled } from './assemble.js';
import { BuildError, messageOf, withDetails } from './errors.js';
import { bytesText, dirOf, isDataFile, isRegoFile } from './files.js';
import { formatRegoErrors, goJSON, JSONNumber, parseJSONExact, regoErrorDetails } from './gotext.js';
import { v1Hint } from './rego-version.js';
import { formatAsOPA } from './mounts.js';
import { optimizationEntrypoints, optimizeBundle } from './optimize.js';

export { formatRegoErrors };

const gzip = promisify(gzipCb);

export interface BuiltBundle {
  bundle: Bundle;
  bytes: Buffer;
}

type Obj = Record<string, unknown>;

/** A bundle definition's `options` that shape the output (`target`, `optimization.level`). */
export interface BuildOptions {
  target?: string;
  optimization?: { level?: number };
}

export async function buildBundle(a: Assembled, revision: string, options: BuildOptions = {}): Promise<BuiltBundle> {
  const paths = [...a.files.keys()].sort();
  const modules = paths.filter(isRegoFile).map((p) => ({ path: '/' + p, text: bytesText(a.files.get(p)!) }));
  const v0 = a.regoVersion === 0;
  let policy: CompiledPolicy | undefined;
  try {
    policy = compile(modules.map((m) => ({ file: m.path, text: m.text })), { v0Compatible: v0 });
  } catch (e) {
    if (e instanceof RegoErrors) throw withDetails(new BuildError(`build: ${formatRegoErrors(e)}${v1Hint(e, modules, a.regoVersion)}`), regoErrorDetails(e));
    throw new BuildError(`build: ${messageOf(e)}`);
  }
  let printed = modules.map((m) => ({ path: m.path, text: formatted(m.text, m.path, v0) }));
  // The first path segment is the source directory, not part of the data path.
  const data = mergeDataFiles([...a.files], (p) => p.slice(p.indexOf('/') + 1), true);
  const dataJSON = goJSON(data);
  const dataValue = fromJS(JSON.parse(dataJSON));
  const target = options.target ?? 'rego';
  if (target === 'ir' || target === 'plan') throw new BuildError(`build: target ${JSON.stringify(target)} (OPA's plan.json) is not supported by Regent; use rego or wasm`);
  const level = options.optimization?.level ?? 0;
  // Entrypoints come from METADATA `entrypoint: true`, ordered by path as OPA's annotation set.
  const entrypoints = optimizationEntrypoints([], annotatedEntrypoints(policy));
  let roots = a.roots;
  if (level > 0) {
    try {
      ({ modules: printed, roots } = optimizeBundle({ modules: printed, data: dataValue, roots, regoVersion: a.regoVersion, entrypoints, level }));
    } catch (e) {
      if (e instanceof RegoErrors) throw withDetails(new BuildError(`build: ${formatRegoErrors(e)}`), regoErrorDetails(e));
      throw new BuildError(`build: ${messageOf(e)}`);
    }
  }
  const bundle: Bundle = { manifest: { revision, roots, rego_version: a.regoVersion }, modules: printed, data: dataValue };
  let wasm = '';
  if (target === 'wasm') {
    if (entrypoints.length === 0) throw new BuildError('build: wasm compilation requires at least one entrypoint');
    try {
      await addWasmModule(bundle, entrypoints, 1); // fixed before optimizing, which drops the METADATA
    } catch (e) {
      throw new BuildError(`build: ${messageOf(e)}`);
    }
    wasm = `,"wasm":${wasmResolvers(policy, bundle.manifest.wasm as { entrypoint: string; module: string }[])}`;
  }
  const manifest = `{"revision":${goJSON(revision)},"roots":${goJSON(roots)}${wasm},"rego_version":${a.regoVersion}}\n`;
  const entries = [
    { path: '/data.json', bytes: Buffer.from(dataJSON + '\n') },
    ...printed.map((m) => ({ path: m.path, bytes: Buffer.from(m.text) })),
    ...(bundle.wasmModules ?? []).map((w) => ({ path: w.path, bytes: Buffer.from(w.raw) })),
    { path: '/.manifest', bytes: Buffer.from(manifest) },
  ];
  return { bundle, bytes: await gzip(await tarEntries(entries), { level: 9 }) };
}

/**
 * The manifest's `wasm` entries as OPA writes them: entrypoint, module, and the
 * annotations of the entrypoint's rules (none for a package entrypoint), keys
 * in OPA's struct order.
 */
function wasmResolvers(policy: CompiledPolicy, entries: { entrypoint: string; module: string }[]): string {
  const items = entries.map((e) => {
    const annotations: unknown[] = [];
    for (const m of policy.modules) {
      const pkg = m.package.path.slice(1).map((t) => (t as { value?: unknown }).value).join('/');
      for (const r of m.rules) {
        const head = r.head.ref[0];
        const name = head && head.kind === 'var' ? head.name : undefined;
        if (name === undefined || `${pkg}/${name}` !== e.entrypoint || r.head.ref.length > 1) continue;
        for (const an of r.annotations ?? []) annotations.push(annotationValue(an));
      }
    }
    const anns = annotations.length > 0 ? `,"annotations":${goJSON(annotations)}` : '';
    return `{"entrypoint":${goJSON(e.entrypoint)},"module":${goJSON(e.module)}${anns}}`;
  });
  return `[${items.join(',')}]`;
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
