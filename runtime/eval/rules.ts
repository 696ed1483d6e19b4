// Rule-evaluation steps shared by every back end (generated JS, closures and the
// reference interpreter): calling a builtin with OPA's error mapping (and the heap
// room check for large string arguments, limits.ts), and
// inserting one solution of an object rule (`a.b[x].c := v`, `p[k] contains v`).
// A builtin error that non-strict evaluation treats as undefined is also added, as a
// located EvalError, to the list in the builtin context's extras under BUILTIN_ERRORS
// when the caller put one there (`opa eval --show-builtin-errors`).
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { equal } from '../value/compare.js';
import type { BuiltinDef } from '../builtins/types.js';
import { BuiltinCallError, builtinFailure } from '../builtins/registry.js';
import { BuiltinError } from '../builtins/errors.js';
import type { EvalContext } from './context.js';
import { EvalError, type EvalLocation } from './errors.js';
import { LARGE_ARGUMENT, checkArgumentRoom, rangeErrorKind } from './limits.js';

/** The extras key of the list that collects builtin errors treated as undefined (see the header). */
export const BUILTIN_ERRORS = 'builtinErrors';

/** Call a builtin; its errors become located EvalErrors (stack overflow inside it too). */
export function invokeBuiltin(def: BuiltinDef, name: string, vals: Value[], c: EvalContext, loc: EvalLocation): Value | undefined {
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i];
    if (typeof v === 'string' && v.length >= LARGE_ARGUMENT) checkArgumentRoom(name, v.length);
  }
  try {
    return def.impl(vals, c.builtins);
  } catch (err) {
    return builtinFailed(err, def, name, c, loc);
  }
}

/**
 * The outcome of an exception thrown by builtin `def` called at `loc`: `undefined` (no
 * result), or a located EvalError thrown. invokeBuiltin's catch, and the generated
 * code's, which calls `def.impl` in place (compiler/codegen/js/emit-direct.ts) after
 * the same checkArgumentRoom of large string arguments.
 */
export function builtinFailed(err: unknown, def: BuiltinDef, name: string, c: EvalContext, loc: EvalLocation): undefined {
  const e = builtinFailure(def, err, c.builtins);
  if (e === undefined) {
    const list = c.builtins.extras[BUILTIN_ERRORS];
    // The message as strict mode would raise it (builtinFailure), with the call's location.
    if (Array.isArray(list) && err instanceof BuiltinError) list.push(new EvalError(err.code, err.raw ? err.message : `${def.decl.name}: ${err.message}`, loc));
    return undefined;
  }
  if (e instanceof BuiltinCallError) throw new EvalError(e.code, e.message, loc);
  if (e instanceof RangeError) {
    // V8's own size limits (string length, Map size, array length) cancel like the collection cap.
    if (rangeErrorKind(e) === 'size') throw new EvalError('eval_cancel_error', `caller cancelled query execution: ${name}: ${e.message}`, loc);
    throw new EvalError('eval_builtin_error', `${name}: ${e.message}`, loc);
  }
  throw e;
}

/**
 * Put one solution of an object rule into `root`: nested objects along `keys`,
 * then the value at the last key (or into a set there, for `contains` rules).
 * A key that already holds a different value is OPA's eval_conflict_error.
 */
export function insertRuleValue(root: RObject, keys: Value[], v: Value, leafSet: boolean, loc: EvalLocation): void {
  let obj = root;
  for (let i = 0; i < keys.length - 1; i++) {
    let next = obj.get(keys[i]!);
    if (next === undefined) {
      next = new RObject();
      obj.set(keys[i]!, next);
    } else if (!(next instanceof RObject)) throw new EvalError('eval_conflict_error', 'object keys must be unique', loc);
    obj = next;
  }
  const last = keys[keys.length - 1]!;
  if (leafSet) {
    let s = obj.get(last);
    if (s === undefined) {
      s = new RSet();
      obj.set(last, s);
    }
    if (s instanceof RSet) s.add(v);
    return;
  }
  const prev = obj.get(last);
  if (prev !== undefined && !equal(prev, v)) throw new EvalError('eval_conflict_error', 'object keys must be unique', loc);
  obj.set(last, v);
}

/** Set `obj[k] = v` while building an object value; a different value already there is a conflict. */
export function setUnique(obj: RObject, k: Value, v: Value, loc: EvalLocation): void {
  const prev = obj.get(k);
  if (prev !== undefined && !equal(prev, v)) throw new EvalError('eval_conflict_error', 'object keys must be unique', loc);
  obj.set(k, v);
}
