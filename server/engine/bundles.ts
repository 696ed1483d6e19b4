// Bundle activation (OPA's bundle store semantics, engine-behaviors.md §5.4):
// validate the manifest roots (no overlap inside the manifest or with another
// active bundle; every package and data path under a root), compile the new module
// set (off the main thread, one policy change at a time), erase the bundle's roots and write its data plus `data.system.bundles.<name>`
// in one transaction, then commit, record the roots as owned and publish. Any
// failure throws before the commit, leaving the previous state active. Large data
// values reach the workers as shared bytes prepared first (Engine.shareValues).
import { RObject, fromJS, pathsOverlap, readPath, rootSegments, type Bundle, type Value } from '../../runtime/index.js';
import { BundleActivationError } from './errors.js';
import { bundleWasmSpec } from './wasm-modules.js';
import type { Engine } from './engine.js';
import { checkPathConflicts, packagePath, type PolicyRecord } from './policies.js';

export interface ActiveBundle {
  name: string;
  revision?: string;
  roots: string[];
}

function underSomeRoot(path: string[], roots: string[][]): boolean {
  return roots.some((r) => r.length <= path.length && pathsOverlap(r, path));
}

/** Every data path of `data` must lie under a root (walking only where roots go deeper). */
function checkDataRoots(data: Value, path: string[], roots: string[][], rootTexts: string[]): void {
  if (underSomeRoot(path, roots)) return;
  if (!(data instanceof RObject)) throw new BundleActivationError(`manifest roots [${rootTexts.join(' ')}] do not permit data at path '/${path.join('/')}'`);
  for (const [k, v] of data.entries()) checkDataRoots(v, [...path, String(k)], roots, rootTexts);
}

function validateRoots(name: string, roots: string[], others: ActiveBundle[]): string[][] {
  const segs = roots.map(rootSegments);
  for (let i = 0; i < segs.length; i++) {
    for (let j = i + 1; j < segs.length; j++) {
      if (pathsOverlap(segs[i]!, segs[j]!)) throw new BundleActivationError(`manifest has overlapped roots: '${roots[i]}' and '${roots[j]}'`);
    }
  }
  for (const other of others) {
    if (other.name === name) continue;
    const overlap = other.roots.map(rootSegments).some((o) => segs.some((s) => pathsOverlap(s, o)));
    if (overlap) throw new BundleActivationError(`detected overlapping roots in bundle manifest with: [${other.name}]`);
  }
  return segs;
}

/** Activate `bundle` as `name`; returns the new active-bundle record. */
export function activateBundle(engine: Engine, name: string, bundle: Bundle, active: ActiveBundle[]): Promise<ActiveBundle> {
  return engine.exclusive(() => activateExclusive(engine, name, bundle, active));
}

async function activateExclusive(engine: Engine, name: string, bundle: Bundle, active: ActiveBundle[]): Promise<ActiveBundle> {
  const roots = bundle.manifest.roots ?? [''];
  const rootSegs = validateRoots(name, roots, active);
  // Large data goes to the workers as shared bytes they build in slices (before the
  // engine state is read, so nothing changes under this activation once it starts).
  const shared = await engine.shareValues(rootSegs.filter((s) => s.length > 0).map((s) => readPath(bundle.data, s) ?? null));
  try {
    return await activate(engine, name, bundle, roots, rootSegs);
  } finally {
    shared.release();
  }
}

async function activate(engine: Engine, name: string, bundle: Bundle, roots: string[], rootSegs: string[][]): Promise<ActiveBundle> {
  const v0 = bundle.manifest.rego_version === 0 ? true : bundle.manifest.rego_version === 1 ? false : engine.v0Compatible;

  const next = new Map<string, PolicyRecord>();
  for (const r of engine.policies()) if (r.bundle !== name) next.set(r.id, r);
  for (const m of bundle.modules) {
    const id = `${name}/${m.path.replace(/^\/+/, '')}`;
    const record = { ...engine.parse(id, m.text, v0), bundle: name, v0Compatible: v0 };
    const pkg = packagePath(record.module);
    if (!underSomeRoot(pkg, rootSegs)) {
      throw new BundleActivationError(`manifest roots [${roots.join(' ')}] do not permit 'package ${pkg.join('.')}' in module file '${m.path}'`);
    }
    next.set(id, record);
  }
  checkDataRoots(bundle.data, [], rootSegs, roots);
  // Compiled off the main thread (engine.compileCandidate); nothing is written before.
  const candidate = await engine.compileCandidate(next.values(), 'put');

  const txn = engine.store.begin();
  for (const segs of rootSegs) {
    if (segs.length === 0) {
      const root = bundle.data instanceof RObject ? bundle.data.clone() : new RObject();
      const system = txn.read(['system']);
      if (system !== undefined && !root.has('system')) root.set('system', system);
      txn.write('add', [], root);
      continue;
    }
    if (txn.read(segs) !== undefined) txn.write('remove', segs);
    const value = readPath(bundle.data, segs);
    if (value !== undefined) {
      txn.makeParents(segs);
      txn.write('add', segs, value);
    }
  }
  const manifest: Record<string, unknown> = { ...bundle.manifest, roots };
  const meta = fromJS({ manifest, ...(bundle.etag ? { etag: bundle.etag } : {}) });
  txn.makeParents(['system', 'bundles', name]);
  txn.write('add', ['system', 'bundles', name], meta);

  const data = txn.read([]);
  checkPathConflicts(candidate.rules, data instanceof RObject ? data : new RObject());
  engine.store.setBundleRoots(name, roots);
  engine.setBundleWasm(name, bundleWasmSpec(name, bundle));
  await engine.installPolicies(next, candidate, txn);
  return { name, roots, ...(bundle.manifest.revision !== undefined ? { revision: bundle.manifest.revision } : {}) };
}
