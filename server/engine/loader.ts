// Loading the paths given to `regent run` (as `opa run` does): .rego files are
// modules (id = the path), .json/.yaml files are data (merged at the root when
// named directly, at their directory's path relative to the given directory
// otherwise), and bundles — tarballs (.tar.gz/.tgz), directories with a .manifest,
// or any directory when `asBundles` — are read with runtime/bundles and activated.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { load as loadYAML } from 'js-yaml';
import { RObject, fromJS, parseJSON, readBundle, readBundleDir, type Value } from '../../runtime/index.js';
import type { Engine } from './engine.js';
import type { EngineHost } from './host.js';
import { checkPathConflicts, rulePaths, type PolicyRecord } from './policies.js';

export class LoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoadError';
  }
}

const DATA_EXT = new Set(['.json', '.yaml', '.yml']);

/** Every file under a directory, sorted, skipping dot files (as OPA's loader). */
export function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

/** A path loaded as a bundle: an archive, a directory with a manifest, or any directory with `-b`. */
export function isBundlePath(path: string, asBundles: boolean): boolean {
  if (/\.(tar\.gz|tgz)$/.test(path)) return true;
  return statSync(path).isDirectory() && (asBundles || existsSync(join(path, '.manifest')));
}

function parseData(file: string): Value {
  const text = readFileSync(file, 'utf8');
  try {
    if (extname(file).toLowerCase() === '.json') return text.trim() === '' ? new RObject() : parseJSON(text);
    return fromJS(loadYAML(text) ?? {});
  } catch (e) {
    throw new LoadError(`${file}: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Deep-merge `value` into `target` at `path`; differing leaves conflict. */
function mergeAt(target: RObject, path: string[], value: Value, origin: string): void {
  if (path.length === 0) {
    if (!(value instanceof RObject)) throw new LoadError(`${origin}: root value must be object`);
    for (const [k, v] of value.entries()) mergeAt(target, [String(k)], v, origin);
    return;
  }
  const [head, ...rest] = path as [string, ...string[]];
  const existing = target.getStr(head);
  if (rest.length > 0) {
    if (existing !== undefined && !(existing instanceof RObject)) throw new LoadError(`${origin}: merge error`);
    const child = existing instanceof RObject ? existing : new RObject();
    target.set(head, child);
    mergeAt(child, rest, value, origin);
  } else if (existing instanceof RObject && value instanceof RObject) {
    for (const [k, v] of value.entries()) mergeAt(existing, [String(k)], v, origin);
  } else if (existing !== undefined) {
    throw new LoadError(`${origin}: merge error`);
  } else target.set(head, value);
}

/** Load every path into the engine: plain files in one commit, then each bundle. */
export async function loadPaths(engine: Engine, host: EngineHost, paths: string[], asBundles = false): Promise<void> {
  const records = new Map<string, PolicyRecord>(engine.policies().map((r) => [r.id, r]));
  const data = new RObject();
  const bundles: string[] = [];
  const addFile = (file: string, dataPath: string[]): void => {
    const ext = extname(file).toLowerCase();
    if (ext === '.rego') records.set(file, engine.parse(file, readFileSync(file, 'utf8')));
    else if (DATA_EXT.has(ext)) mergeAt(data, dataPath, parseData(file), file);
  };
  for (const path of paths) {
    if (!existsSync(path)) throw new LoadError(`stat ${path}: no such file or directory`);
    if (isBundlePath(path, asBundles)) bundles.push(path);
    else if (statSync(path).isDirectory()) {
      for (const f of walk(path)) addFile(f, relative(path, f).split(sep).slice(0, -1));
    } else addFile(path, []);
  }
  const policy = engine.compile(records.values());
  checkPathConflicts(rulePaths(policy), data);
  if (data.size > 0) {
    await engine.writeData([[]], (txn) => {
      for (const [k, v] of data.entries()) {
        if (txn.read([String(k)]) === undefined) txn.write('add', [String(k)], v);
        else txn.write('replace', [String(k)], v);
      }
    });
  }
  await engine.installPolicies(records, policy);
  for (const path of bundles) {
    const bundle = statSync(path).isDirectory() ? await readBundleDir(path) : await readBundle(readFileSync(path));
    await host.activateBundle(path, bundle);
  }
}
