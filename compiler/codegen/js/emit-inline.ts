// Rules the JS source back end runs in place in their consumer's generated function
// instead of through the rule machinery (program.ts), removing per-member callbacks,
// memo tables and calls that a hand-written function does not pay for:
//  - a leading loop over a set rule with at most two plain definitions (`some g in
//    granted` where `granted contains g if { … }`): the definitions' bodies run inline
//    and each member flows straight into the rest of the consumer's body;
//  - a test of a complete rule whose definitions all give one constant that passes
//    (`allow if user_is_admin`): the bodies run inline until one succeeds.
// Both keep the rule's own path as a run-time fallback (a `with data` replacement is
// active), give the inlined definitions their own local slot names, and only apply
// with local slots and outside inlined code. `inlinableSet`/`inlinableTest` decide
// from the IR which rule groups qualify (used by program.ts).
import type { Block, Expr, RuleGroup, Stmt } from '../../ir/ir.js';
import type { Value } from '../../../runtime/value/value.js';
import { _, Code, join, type Name } from './code.js';
import { Unsupported, type Emitter } from './emit.js';
import { someNode } from '../../ir/visit.js';

/** Whether IR (a body, an expression) holds a `print` statement, at any depth. */
export function hasPrint(node: unknown): boolean {
  return someNode(node, (n) => n.k === 'print');
}

/** Plain definitions: no else, no ref-head keys, no parameters, no `print` (a memoized rule prints once). */
function plain(g: RuleGroup): boolean {
  return g.index === undefined && g.defs.length > 0 && g.defs.length <= 2 && g.defs.every((d) => !d.else && d.keys.length === 0 && d.params.length === 0 && !hasPrint(d.body) && !hasPrint(d.value));
}

/** A set rule's definitions that may be inlined into a consumer's leading loop, or undefined. */
export function inlinableSet(g: RuleGroup): readonly { body: Block; value: Expr }[] | undefined {
  // At most two: the consumer's rest is emitted once per definition, plus once for the fallback.
  return g.kind === 'set' && plain(g) ? g.defs : undefined;
}

/**
 * A complete rule's definitions that may run in place of a test of it: every
 * definition gives the same constant (`constant`), which passes a test (not false),
 * and no default would pass it instead.
 */
export function inlinableTest(g: RuleGroup, constant: Value | undefined): readonly { body: Block }[] | undefined {
  if (g.kind !== 'complete' || constant === undefined || constant === false || (g.default !== undefined && g.default !== false)) return undefined;
  return plain(g) ? g.defs : undefined;
}

/**
 * A leading loop over a set rule with its definitions' bodies inlined: each
 * solution's member goes straight into the rest of this body, in the same
 * function, as emit.ts's generator does through a callback. Only with local slots
 * (the set's slots get their own names), when no `with data` replacement is active
 * (checked at run time: the generator then runs), and not inside another inlined
 * body; a definition the emitter cannot inline leaves the generator in place.
 */
export function inlineSet(e: Emitter, s: Stmt & { k: 'scan' }, rest: (fail: Name) => Code, generator: () => Code): Code | undefined {
  if (!e.locals || e.slotPrefix !== '' || s.source.k !== 'rule') return undefined;
  const defs = e.opts.inlineSet?.(s.source.group);
  if (!defs) return undefined;
  const outer = e.slotPrefix;
  const parts: Code[] = [];
  try {
    for (const d of defs) {
      const label = e.names.next('L');
      e.slotPrefix = `${e.inlined++}_`;
      const inner = e.slotPrefix;
      const member = (fail: Name): Code => {
        const pre: Code[] = [];
        const v = e.expr(d.value, fail, pre);
        const m = e.names.next('m');
        e.slotPrefix = outer;
        try {
          return join([...pre, _`const ${m} = ${v};`, e.pattern(s.key, m, fail), e.pattern(s.value, m, fail), rest(fail)]);
        } finally {
          e.slotPrefix = inner;
        }
      };
      parts.push(join([_`${label}: {`, e.block(d.body, 0, label, member, false), _`}`]));
    }
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  } finally {
    e.slotPrefix = outer;
  }
  return join([_`if (c.dataOverrides === undefined) {`, ...parts, _`} else {`, generator(), _`}`]);
}

/**
 * A test of a complete rule whose definitions all give one constant that passes
 * the test (`allow if user_is_admin`): the definitions' bodies run in place until
 * one succeeds, instead of evaluating and memoizing the rule. Outside loops only
 * (a memo pays for itself there), with local slots, and when no `with data`
 * replacement is active (checked at run time: evalGroup runs then).
 */
export function inlineTest(e: Emitter, s: Stmt & { k: 'test' }, fail: Name): Code | undefined {
  if (!e.locals || e.loops > 0 || e.slotPrefix !== '' || s.expr.k !== 'rule') return undefined;
  const defs = e.opts.inlineTest?.(s.expr.group);
  if (!defs) return undefined;
  const found = e.names.next('n');
  const done = e.names.next('L');
  const parts: Code[] = [];
  try {
    for (const d of defs) {
      const label = e.names.next('L');
      e.slotPrefix = `${e.inlined++}_`;
      parts.push(join([_`${label}: {`, e.block(d.body, 0, label, () => _`${found} = true; break ${done};`, false), _`}`]));
    }
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  } finally {
    e.slotPrefix = '';
  }
  const t = e.names.next('t');
  // The fallback evaluates the rule (ops.evalGroup): unbounded work.
  e.unbounded++;
  return join([
    _`let ${found} = false;`,
    _`if (c.dataOverrides === undefined) { ${done}: {`,
    ...parts,
    _`} } else { const ${t} = ops.evalGroup(${e.k(s.expr.group)}, c); ${found} = ${t} !== undefined && ${t} !== false; }`,
    _`if (!${found}) break ${fail};`,
  ]);
}
