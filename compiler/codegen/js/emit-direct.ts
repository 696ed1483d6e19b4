// Generated-JS forms that skip the runtime's shared helpers where the IR settles what
// they would decide (emit-exprs.ts calls these): a builtin's implementation called in
// place, an object literal with distinct constant string keys stored straight into
// its props, and equality with a constant string, boolean or null as `===`. Each
// keeps the shared path's semantics: the checks it makes (heap room, collection cap)
// and its errors (runtime/eval/rules.ts builtinFailed) are the same, and under a
// `with` mock (`plain` false at run time) builtin calls take the shared path.
// test/unit/codegen/builtin-calls.test.ts, object-literals.test.ts and
// constant-equality.test.ts compare them with the closure back end and the interpreter.
import type { Expr } from '../../ir/ir.js';
import { _, Code, join, type Name } from './code.js';
import { propKey, type ExprEmitter } from './emit-exprs.js';

/** A constant string, boolean or null: no other value equals it, so `===` is Rego equality with it. */
export function comparedByIdentity(e: Expr | undefined): boolean {
  return e?.k === 'const' && (typeof e.value === 'string' || typeof e.value === 'boolean' || e.value === null);
}

/** Whether an object's keys are all constant strings, none repeated. */
export function constantStringKeys(entries: [Expr, Expr][]): boolean {
  const seen = new Set<string>();
  for (const [k] of entries) {
    if (k.k !== 'const' || typeof k.value !== 'string' || seen.has(k.value)) return false;
    seen.add(k.value);
  }
  return entries.length > 0;
}

/**
 * An object whose keys are distinct constant strings (`{"msg": msg, "field": f}`):
 * the values in order (an undefined one leaves), stored straight into a props object
 * (no key can conflict, so no setUnique), with the collection cap checked where
 * RObject.set would check it, after each value from the second.
 */
export function stringKeyedObject(e: ExprEmitter, entries: [Expr, Expr][], fail: Name, pre: Code[]): Code {
  const p = e.names.next('t');
  const stores: Code[] = [];
  entries.forEach(([ke, ve], i) => {
    const v = e.expr(ve, fail, pre);
    if (i > 0) pre.push(_`if (${i + 1} > rt.limits.maxCollectionSize) rt.collectionTooLarge();`);
    const key = (ke as Expr & { k: 'const' }).value as string;
    stores.push(_`${p}${propKey(key, e.k(key))} = ${v};`);
  });
  const o = e.names.next('o');
  pre.push(_`const ${p} = RObject.bareProps();`, ...stores, _`const ${o} = new RObject(${p}, ${entries.length});`);
  return o;
}

/** Expressions whose value is never a string argument to check (a constant is known small). */
const NOT_A_STRING = new Set<Expr['k']>(['const', 'array', 'set', 'object', 'compr']);

/**
 * A builtin call (its arguments `args` already checked). Without `with` mocks (`plain`)
 * the implementation is called in place: each call site then has its own inline cache
 * for `impl`, where the shared `X.call` path (closures' invoke, runtime/eval/rules.ts
 * invokeBuiltin) is one megamorphic call for every builtin of the process. The same
 * checks as invokeBuiltin: the heap room check of a large string argument first, and
 * the exception mapped by rt.builtinFailed (no result, or a located error).
 */
export function builtinCall(e: ExprEmitter, call: Expr & { k: 'call' }, args: Code[], name: Code, loc: Code, fail: Name, pre: Code[]): Code {
  const def = e.builtin(call.name, call.loc);
  const list = join(args, new Code(', '));
  const t = e.names.next('t');
  const room = args
    .filter((_a, i) => !NOT_A_STRING.has(call.args[i]!.k))
    .map((a) => _`if (typeof ${a} === 'string' && ${a}.length >= rt.LARGE_ARGUMENT) rt.checkArgumentRoom(${name}, ${a}.length);`);
  pre.push(
    _`let ${t};`,
    _`if (plain) { ${join(room)}try { ${t} = ${def}.impl([${list}], c.builtins); } catch (err) { ${t} = rt.builtinFailed(err, ${def}, ${name}, c, ${loc}); } }`,
    _`else ${t} = X.call(${def}, ${name}, [${list}], c, ${loc});`,
    _`if (${t} === undefined) break ${fail};`,
  );
  return t;
}
