// json.patch: RFC 6902 on Rego values, following OPA's topdown/json.go. Works on
// objects, arrays and sets (a set member is its own path segment). Every step
// builds new values; a failed operation makes the whole patch undefined.
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { equal } from '../value/compare.js';
import { BigNum, isIntegral, toDouble } from '../value/number.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { OperandTypeError } from './errors.js';
import { asArray } from './args.js';
import { parsePath, type Path } from './json-paths.js';

/** An array index from a path segment, as OPA's toIndex; undefined when invalid. */
function toIndex(arr: Value[], key: Value): number | undefined {
  if (typeof key === 'number' || key instanceof BigNum) {
    return isIntegral(key) ? toDouble(key) : undefined;
  }
  if (typeof key === 'string') {
    if (key === '-') return arr.length;
    if (!/^[+-]?\d+$/.test(key)) return undefined;
    if (key !== '0' && key.startsWith('0')) return undefined;
    const n = Number(key);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

type Worker = (parent: Value, key: Value) => [Value | undefined, Value | undefined];

/** Rebuild `target` along `path`, applying `worker` to the last step's parent. */
function traverse(target: Value, path: Path, i: number, worker: Worker): [Value | undefined, Value | undefined] {
  if (i >= path.length) return [undefined, undefined];
  const key = path[i]!;
  if (i === path.length - 1) return worker(target, key);
  if (target instanceof RObject) {
    const child = target.get(key);
    if (child === undefined) return [undefined, undefined];
    const [v, result] = traverse(child, path, i + 1, worker);
    if (v === undefined) return [undefined, undefined];
    return [target.clone().set(key, v), result];
  }
  if (Array.isArray(target)) {
    const idx = toIndex(target, key);
    if (idx === undefined || idx < 0 || idx >= target.length) return [undefined, undefined];
    const [v, result] = traverse(target[idx]!, path, i + 1, worker);
    if (v === undefined) return [undefined, undefined];
    const arr = [...target];
    arr[idx] = v;
    return [arr, result];
  }
  if (target instanceof RSet) {
    if (!target.has(key)) return [undefined, undefined];
    const [v, result] = traverse(key, path, i + 1, worker);
    if (v === undefined) return [undefined, undefined];
    const set = target.clone();
    set.delete(key);
    return [set.add(v), result];
  }
  return [undefined, undefined];
}

export function patchGet(target: Value, path: Path): Value | undefined {
  if (path.length === 0) return target;
  return traverse(target, path, 0, (parent, key) => {
    if (parent instanceof RObject) return [parent, parent.get(key)];
    if (Array.isArray(parent)) {
      const i = toIndex(parent, key);
      if (i !== undefined && i >= 0 && i < parent.length) return [parent, parent[i]!];
    } else if (parent instanceof RSet && parent.has(key)) {
      return [parent, key];
    }
    return [undefined, undefined];
  })[1];
}

export function patchAdd(target: Value, path: Path, value: Value): Value | undefined {
  if (path.length === 0) return value;
  return traverse(target, path, 0, (parent, key) => {
    if (parent instanceof RObject) return [parent.clone().set(key, value), undefined];
    if (Array.isArray(parent)) {
      const idx = toIndex(parent, key);
      if (idx === undefined || idx < 0 || idx > parent.length) return [undefined, undefined];
      return [[...parent.slice(0, idx), value, ...parent.slice(idx)], undefined];
    }
    if (parent instanceof RSet) {
      if (!equal(key, value)) return [undefined, undefined];
      return [parent.clone().add(key), undefined];
    }
    return [undefined, undefined];
  })[0];
}

export function patchRemove(target: Value, path: Path): [Value, Value] | undefined {
  if (path.length === 0) return undefined;
  const [t, removed] = traverse(target, path, 0, (parent, key) => {
    if (parent instanceof RObject) {
      const removedV = parent.get(key);
      const obj = parent.clone();
      obj.delete(key);
      return [obj, removedV];
    }
    if (Array.isArray(parent)) {
      const idx = toIndex(parent, key);
      if (idx === undefined || idx < 0 || idx >= parent.length) return [undefined, undefined];
      return [[...parent.slice(0, idx), ...parent.slice(idx + 1)], parent[idx]!];
    }
    if (parent instanceof RSet) {
      const set = parent.clone();
      return [set, set.delete(key) ? key : undefined];
    }
    return [undefined, undefined];
  });
  return t !== undefined && removed !== undefined ? [t, removed] : undefined;
}

function patchReplace(target: Value, path: Path, value: Value): Value | undefined {
  if (path.length === 0) return value;
  const r = patchRemove(target, path);
  return r === undefined ? undefined : patchAdd(r[0], path, value);
}

function patchMove(target: Value, path: Path, from: Path): Value | undefined {
  const r = patchRemove(target, from);
  return r === undefined ? undefined : patchAdd(r[0], path, r[1]);
}

function patchCopy(target: Value, path: Path, from: Path): Value | undefined {
  const v = patchGet(target, from);
  return v === undefined ? undefined : patchAdd(target, path, v);
}

function patchTest(target: Value, path: Path, value: Value): Value | undefined {
  const actual = patchGet(target, path);
  return actual !== undefined && equal(actual, value) ? target : undefined;
}

const notPatches = () => new OperandTypeError('operand 2 must be an array of JSON-Patch objects');

/** Apply the operations in order; undefined as soon as one fails. */
export function jsonPatch(doc: Value, ops: Value): Value | undefined {
  let target: Value | undefined = doc;
  for (const op of asArray(ops, 2)) {
    if (!(op instanceof RObject)) throw notPatches();
    const attr = (name: string): Value => {
      const v = op.getStr(name);
      if (v === undefined) throw new OperandTypeError(`operand 2 patch is missing '${name}' attribute`);
      return v;
    };
    const kind = attr('op');
    if (typeof kind !== 'string') throw new OperandTypeError("operand 2 patch attribute 'op' must be a string");
    const path = parsePath(attr('path'));
    const t: Value = target!;
    switch (kind) {
      case 'add':
        target = patchAdd(t, path, attr('value'));
        break;
      case 'remove':
        target = patchRemove(t, path)?.[0];
        break;
      case 'replace':
        target = patchReplace(t, path, attr('value'));
        break;
      case 'move':
        target = patchMove(t, path, parsePath(attr('from')));
        break;
      case 'copy':
        target = patchCopy(t, path, parsePath(attr('from')));
        break;
      case 'test':
        target = patchTest(t, path, attr('value'));
        break;
      default:
        throw notPatches();
    }
    if (target === undefined) return undefined;
  }
  return target;
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'json.patch',
      args: [
        T.any,
        T.arrayOf({
          type: 'object',
          static: [
            { key: 'op', value: T.string },
            { key: 'path', value: T.any },
          ],
          dynamic: { key: T.any, value: T.any },
        }),
      ],
      result: T.any,
      categories: ['object'],
    },
    impl: ([doc, ops]) => jsonPatch(doc!, ops!),
  },
];
