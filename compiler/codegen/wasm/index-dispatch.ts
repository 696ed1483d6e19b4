// The rule index (compiler/passes/rule-index.ts) in Wasm code. For an indexed group,
// the indexed ref is evaluated once and looked up in a table constant (an object
// mapping each indexed constant to its entry number, searched by binary search in
// Rego's order by the runtime's `rt_index_find`); a `br_table` on the entry number then
// jumps straight to that entry's definitions. Definitions keep their source order:
// each run of consecutive indexed definitions becomes one switch, and the definitions
// without an index condition stay between the runs, run on every evaluation. Misses
// (an undefined ref, or a value no definition tests) select no case.
import binaryen from 'binaryen';
import type { RuleGroup } from '../../ir/ir.js';
import { RObject } from '../../../runtime/value/collections.js';
import type { FnGen } from './exprs.js';
import type { Linker } from './link.js';

const I32 = binaryen.i32;
type X = binaryen.ExpressionRef;

/** One definition's code, with its position in the group. */
export interface DefCode {
  def: number;
  code: X;
}

/**
 * Prepare group `g`'s index dispatch: pushes the lookup (evaluated once, before the
 * definitions) onto `out` and returns the function that arranges the definitions'
 * code, in source order, behind the dispatch. Without an index the definitions run
 * one after the other, unchanged.
 */
export function indexDispatch(L: Linker, f: FnGen, g: RuleGroup, out: X[]): (defs: DefCode[]) => X[] {
  const ix = g.index;
  if (!ix) return (defs) => defs.map((d) => d.code);
  const m = L.m;
  const entryOf = new Map<number, number>();
  ix.entries.forEach((e, j) => e.defs.forEach((d) => entryOf.set(d, j)));
  const table = RObject.fromEntries(ix.entries.map((e, j): [typeof e.key, number] => [e.key, j]));
  const sel = f.temp();
  const undef = f.label('ixu');
  out.push(
    m.local.set(sel, m.i32.const(-1)),
    m.block(undef, [m.local.set(sel, f.rt('rt_index_find', [m.global.get(L.constant(table), I32), f.expr(ix.ref, undef)]))]),
  );
  const entries = ix.entries.length;

  /** One switch over a run of indexed definitions: case c holds entry cases[c]'s definitions. */
  const dispatch = (run: DefCode[]): X => {
    const cases: number[] = [];
    for (const d of run) {
      const j = entryOf.get(d.def)!;
      if (!cases.includes(j)) cases.push(j);
    }
    const done = f.label('ixdone');
    const none = f.label('ixnone');
    const labels = cases.map(() => f.label('ixcase'));
    const caseOf = new Map(cases.map((j, c) => [j, c]));
    const targets = Array.from({ length: entries }, (_, j) => {
      const c = caseOf.get(j);
      return c === undefined ? none : labels[c]!;
    });
    // block none { block case_{k-1} { … block case_0 { br_table } code_0; br done … } code_{k-1}; br done }
    let blk = m.block(labels[0]!, [m.switch(targets, none, m.local.get(sel, I32))]);
    cases.forEach((j, c) => {
      const code = run.filter((d) => entryOf.get(d.def) === j).map((d) => d.code);
      blk = m.block(c + 1 < cases.length ? labels[c + 1]! : none, [blk, ...code, m.br(done)]);
    });
    return m.block(done, [blk]);
  };

  return (defs) => {
    const seq: X[] = [];
    let run: DefCode[] = [];
    const flush = () => {
      if (run.length > 0) seq.push(dispatch(run));
      run = [];
    };
    for (const d of defs) {
      if (entryOf.has(d.def)) run.push(d);
      else {
        flush();
        seq.push(d.code);
      }
    }
    flush();
    return seq;
  };
}
