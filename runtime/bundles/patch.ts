// Applying a delta bundle's `patch.json` operations to the data of the active
// snapshot (OPA's store.go applyPatches): `upsert` creates missing parent
// objects then adds or overwrites, `remove` and `replace` need the target to
// exist. Paths are `/`-separated with JSON-pointer escapes (`~0`, `~1`); array
// segments are indices (or `-` to append for upsert). Copy-on-write: the input
// value is never modified.
import { RObject, type Value } from '../value/index.js';
import type { BundlePatchOperation } from './types.js';
import { BundleError } from './errors.js';

function parsePath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return [];
  return trimmed.split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function notFound(path: string): BundleError {
  return new BundleError('data', `storage_not_found_error: ${path}: document does not exist`);
}

function arrayIndex(seg: string, len: number, allowEnd: boolean): number | undefined {
  if (allowEnd && seg === '-') return len;
  if (!/^(0|[1-9]\d*)$/.test(seg)) return undefined;
  const i = Number(seg);
  return i < len || (allowEnd && i === len) ? i : undefined;
}

/** Set/remove at `segs` under `node`, returning the updated copy. */
function update(node: Value, segs: string[], op: BundlePatchOperation, full: string): Value {
  const [head, ...rest] = segs;
  if (head === undefined) throw new BundleError('data', `bad patch path: ${full}`);
  const last = rest.length === 0;
  if (node instanceof RObject) {
    const child = node.get(head);
    const copy = node.clone();
    if (last) {
      if (op.op === 'remove') {
        if (child === undefined) throw notFound(full);
        copy.delete(head);
      } else {
        if (op.op === 'replace' && child === undefined) throw notFound(full);
        copy.set(head, op.value ?? null);
      }
      return copy;
    }
    let next = child;
    if (next === undefined) {
      if (op.op !== 'upsert') throw notFound(full);
      next = new RObject();
    }
    copy.set(head, update(next, rest, op, full));
    return copy;
  }
  if (Array.isArray(node)) {
    const idx = arrayIndex(head, node.length, last && op.op === 'upsert');
    if (idx === undefined) throw notFound(full);
    const copy = node.slice();
    if (last) {
      if (op.op === 'remove') copy.splice(idx, 1);
      else if (op.op === 'upsert') copy.splice(idx, 0, op.value ?? null);
      else copy[idx] = op.value ?? null;
      return copy;
    }
    copy[idx] = update(copy[idx]!, rest, op, full);
    return copy;
  }
  throw notFound(full);
}

/** Apply the operations in order; returns the new data (the input is unchanged). */
export function applyBundlePatch(data: Value, ops: readonly BundlePatchOperation[]): Value {
  let out = data;
  for (const op of ops) {
    if (op.op !== 'upsert' && op.op !== 'remove' && op.op !== 'replace') throw new BundleError('data', `bad patch operation: ${String(op.op)}`);
    const segs = parsePath(op.path);
    if (segs.length === 0) {
      if (op.op === 'remove') out = new RObject();
      else out = op.value ?? new RObject();
      continue;
    }
    out = update(out, segs, op, '/' + segs.join('/'));
  }
  return out;
}
