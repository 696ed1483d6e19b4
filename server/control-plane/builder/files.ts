// File trees: the in-memory form of every piece of source content (a git
// checkout, a directory snapshot, datasource results, API-pushed documents).
// Paths are slash-separated, relative, without a leading slash. Helpers select a
// subtree, mount a tree under a prefix, filter by globs and hash a tree the way
// the control plane computes `bundle.hash` / `sql.hash` (sha256 over the files
// sorted by path, each contributing `path`, a NUL byte and the content).
import { createHash } from 'node:crypto';
import { keepFile } from './glob.js';

export type FileTree = Map<string, Uint8Array>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function textBytes(s: string): Uint8Array {
  return encoder.encode(s);
}

export function bytesText(b: Uint8Array): string {
  return decoder.decode(b);
}

/** Keep files passing the include/exclude globs (see glob.ts `keepFile`). */
export function filterTree(tree: FileTree, include?: readonly string[], exclude?: readonly string[]): FileTree {
  if (!include?.length && !exclude?.length) return tree;
  const out: FileTree = new Map();
  for (const [p, b] of tree) if (keepFile(p, include, exclude)) out.set(p, b);
  return out;
}

/** The files under directory `dir` ('' = all), re-rooted at it. */
export function subTree(tree: FileTree, dir: string): FileTree {
  if (dir === '') return tree;
  const pre = dir + '/';
  const out: FileTree = new Map();
  for (const [p, b] of tree) if (p.startsWith(pre)) out.set(p.slice(pre.length), b);
  return out;
}

/** True when some file lies under `dir`. */
export function hasDir(tree: FileTree, dir: string): boolean {
  if (dir === '') return tree.size > 0;
  const pre = dir + '/';
  for (const p of tree.keys()) if (p.startsWith(pre)) return true;
  return false;
}

/** Every file moved under directory `prefix`. */
export function mountTree(tree: FileTree, prefix: string): FileTree {
  if (prefix === '') return tree;
  const out: FileTree = new Map();
  for (const [p, b] of tree) out.set(`${prefix}/${p}`, b);
  return out;
}

export function extOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 && !base.startsWith('.') ? '' : base.slice(dot).toLowerCase();
}

export const isRegoFile = (p: string): boolean => extOf(p) === '.rego';
export const isDataFile = (p: string): boolean => ['.json', '.yaml', '.yml'].includes(extOf(p));

/** Directory of a relative path ('' at the top level). */
export function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** sha256 hex over files sorted by path, each as `path` NUL `content`. */
export function hashTree(files: Iterable<[string, Uint8Array]>): string {
  const entries = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const h = createHash('sha256');
  for (const [p, b] of entries) {
    h.update(p);
    h.update(new Uint8Array([0]));
    h.update(b);
  }
  return h.digest('hex');
}

export function sha256Hex(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Source names as directory names in the bundle: `#` → `##`, then `:` → `#`. */
export function escapeName(name: string): string {
  return name.replace(/#/g, '##').replace(/:/g, '#');
}

/** JSON text with object keys sorted (Go's json.Marshal of a decoded document). */
export function canonicalJSON(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sortKeys(o[k])]));
  }
  return v;
}
