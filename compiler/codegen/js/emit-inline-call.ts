// Calls of small one-constant leaf functions run in place in generated JS (ACI's
// `env_ok(pattern, "string", value) { pattern == value }`, called 27 times per
// decision): instead of an argument array, Program.callFunction, the depth guard,
// candidate selection and a call per definition, the caller binds the arguments to
// fresh locals and runs each definition's parameter match and body in order, in its
// own local slot names (emit-inline.ts's scheme); the first definition with a
// solution gives the constant, none gives the function's default (or undefined).
// Such a function (ir-facts.ts: no iteration, calls only such functions, every
// definition gives one constant) cannot conflict or recurse, and is not memoized
// unless the policy prints (it then has no print itself, so the memo is not
// observable). With a `with` function mock active (`plain` false, a run-time test)
// the call goes through ops.callFunction as before. Inlining nests at most
// MAX_INLINE_DEPTH functions deep; only functions with few, small definitions qualify.
import type { Block, Expr, Pattern, PolicyIR, RuleGroup } from '../../ir/ir.js';
import type { Value } from '../../../runtime/value/value.js';
import { _, Code, join, type Name } from './code.js';
import { hasPrint } from './emit-inline.js';
import { NeedsFrame, Unsupported, type ExprEmitter } from './emit-exprs.js';

/** A function whose calls may run in place: its definitions, their constant, its default. */
export interface InlineFunction {
  defs: readonly { params: Pattern[]; body: Block }[];
  value: Value;
  default: Value | undefined;
}

/** Most definitions an in-place function may have. */
export const MAX_INLINE_DEFS = 4;

/** Most IR nodes (statements, expressions, patterns) one in-place definition may have. */
export const MAX_INLINE_NODES = 40;

/** How deep in-place functions nest (a caller's function, and one function it calls). */
export const MAX_INLINE_DEPTH = 2;

/** IR nodes (objects with a `k`) in a definition, stopping past `limit`. */
function size(node: unknown, limit: number): number {
  let n = 0;
  const walk = (x: unknown): void => {
    if (n > limit || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      for (const y of x) walk(y);
      return;
    }
    const o = x as { k?: unknown };
    if (o.k !== undefined) n++;
    if (o.k === 'const') return;
    for (const [key, v] of Object.entries(x)) if (key !== 'loc') walk(v);
  };
  walk(node);
  return n;
}

function inlinable(g: RuleGroup, leaf: boolean, value: Value | undefined): InlineFunction | undefined {
  if (g.kind !== 'function' || !leaf || value === undefined || g.defs.length > MAX_INLINE_DEFS) return undefined;
  if (g.defs.some((d) => d.else !== undefined || hasPrint(d) || size([d.params, d.body], MAX_INLINE_NODES) > MAX_INLINE_NODES)) return undefined;
  return { defs: g.defs, value, default: g.default };
}

/**
 * Per group: the function's in-place form when its calls may run in place, else
 * undefined, from the policy's ir-facts.ts facts (leafFunctions, functionConstants).
 */
export function inlinableFunctions(ir: PolicyIR, leaf: boolean[], constants: (Value | undefined)[]): (InlineFunction | undefined)[] {
  return ir.groups.map((g, id) => inlinable(g, leaf[id]!, constants[id]));
}

/**
 * The code of a call of function `call.group` (arguments `args`, already checked)
 * run in place, with its statements in `pre` and `break fail` when it is undefined;
 * undefined when the call is not inlined (not such a function, frame slots, nested too
 * deeply, or a body the emitter cannot keep in locals).
 */
export function inlineCall(e: ExprEmitter, call: Expr & { k: 'callfn' }, args: Code[], fail: Name, pre: Code[]): Code | undefined {
  if (!e.locals || e.fnDepth >= MAX_INLINE_DEPTH) return undefined;
  const fn = e.opts.inlineFunction?.(call.group);
  if (!fn) return undefined;
  const r = e.names.next('t');
  const done = e.names.next('L');
  const argNames = args.map(() => e.names.next('t'));
  const value = e.k(fn.value);
  const outer = e.slotPrefix;
  const parts: Code[] = [];
  e.fnDepth++;
  try {
    for (const d of fn.defs) {
      const label = e.names.next('L');
      e.slotPrefix = `${e.inlined++}_`;
      const head = join(d.params.map((p, i) => e.pattern(p, argNames[i]!, label)));
      parts.push(join([_`${label}: {`, head, e.block(d.body, 0, label, () => _`${r} = ${value}; break ${done};`, false), _`}`]));
    }
  } catch (err) {
    if (err instanceof Unsupported || err instanceof NeedsFrame) return undefined;
    throw err;
  } finally {
    e.slotPrefix = outer;
    e.fnDepth--;
  }
  const fallback = fn.default === undefined ? new Code('') : _`${r} = ${e.k(fn.default)};`;
  // The call under a mock (`plain` false) goes through ops.callFunction, whose work is unbounded.
  e.unbounded++;
  pre.push(
    ...args.map((a, i) => _`const ${argNames[i]!} = ${a};`),
    _`let ${r};`,
    _`if (plain) { ${done}: {`,
    ...parts,
    fallback,
    _`} } else ${r} = ops.callFunction(${e.k(call.group)}, [${join(argNames, new Code(', '))}], c, ${e.k(call.loc)});`,
    _`if (${r} === undefined) break ${fail};`,
  );
  return r;
}
