// The rule index (compiler/passes/rule-index.ts) in Wasm code. For an indexed group,
// the indexed ref is evaluated once and looked up in a table constant (an object
// mapping each indexed constant to its entry number, searched by binary search in
// Rego's order by the runtime's `rt_index_find`); a `br_table` on the entry number then
// jumps straight to that entry's definitions. Definitions keep their source order:
// each run of consecutive indexed definitions becomes one switch, and the definitions
// without an index condition stay between the runs, run on every evaluation. Misses
// (an undefined ref, or a value no definition tests) select no case.
// Function groups are indexed the same way on a constant argument (functionIndex, as
// the JS back end's compileFunctionIndex): the "ref" is that parameter.
import binaryen from 'binaryen';
import type { Expr, RuleGroup, RuleIndex } from '../../ir/ir.js';
import { functionArgumentIndex } from '../../ir/function-index.js';
import type { FnGen } from './exprs.js';
import type { Linker } from './link.js';

const I32 = binaryen.i32;
type X = binaryen.ExpressionRef;

/** Up to this many entries in one run are dispatched by a single `br_table`. */
const FLAT_CASES = 64;

/** A case of a switch: the entry numbers that select it, and its code. */
interface SwitchItem {
  entries: number[];
  code: () => X[];
}

/** One definition's code, with its position in the group. */
/** What the dispatch reads of an index: the ref, the keyed entries, the definitions always run. */
export type DispatchIndex = Pick<RuleIndex, 'ref' | 'entries' | 'always'>;

export interface DefCode {
  def: number;
  code: X;
}

/**
 * A function group's index on one argument (compiler/ir/function-index.ts; definitions
 * with an else chain stay out of the keyed entries and run on every call). The ref is
 * the parameter's local (`tmp`, as exprs.ts reads it).
 */
export function functionIndex(g: RuleGroup): DispatchIndex | undefined {
  const ix = functionArgumentIndex(g, (d) => !d.else);
  return ix && { ref: { k: 'tmp', local: ix.pos } as unknown as Expr, entries: ix.entries, always: ix.always };
}

/**
 * Prepare the index dispatch of group `g` with index `ix` (the rule index pass's, or a
 * function's from functionIndex): pushes the lookup (evaluated once, before the
 * definitions) onto `out` and returns the function that arranges the definitions'
 * code, in source order, behind the dispatch. Without an index the definitions run
 * one after the other, unchanged.
 */
export function indexDispatch(L: Linker, f: FnGen, ix: DispatchIndex | undefined, out: X[]): (defs: DefCode[]) => X[] {
  if (!ix) return (defs) => defs.map((d) => d.code);
  const m = L.m;
  const entryOf = new Map<number, number>();
  ix.entries.forEach((e, j) => e.defs.forEach((d) => entryOf.set(d, j)));
  const table = L.indexTable(ix.entries.map((e) => e.key));
  const sel = f.temp();
  const undef = f.label('ixu');
  out.push(
    m.local.set(sel, m.i32.const(-1)),
    m.block(undef, [m.local.set(sel, f.rt('rt_index_find', [m.global.get(table, I32), f.expr(ix.ref, undef)]))]),
  );

  /**
   * A switch on `sel` over `items`: item c runs when `sel` is one of its entry numbers.
   * `block none { block case_{k-1} { … block case_0 { br_table } code_0; br done … } code_{k-1}; br done }`;
   * the table spans only the items' entry numbers (`sel - lo`; anything else is the default).
   */
  const switchOver = (items: SwitchItem[]): X => {
    const done = f.label('ixdone');
    const none = f.label('ixnone');
    const labels = items.map(() => f.label('ixcase'));
    const all = items.flatMap((it) => it.entries);
    const lo = Math.min(...all);
    const targets = new Array<string>(Math.max(...all) - lo + 1).fill(none);
    items.forEach((it, c) => it.entries.forEach((j) => (targets[j - lo] = labels[c]!)));
    const at = lo === 0 ? m.local.get(sel, I32) : m.i32.sub(m.local.get(sel, I32), m.i32.const(lo));
    let blk = m.block(labels[0]!, [m.switch(targets, none, at)]);
    items.forEach((it, c) => {
      blk = m.block(c + 1 < items.length ? labels[c + 1]! : none, [blk, ...it.code(), m.br(done)]);
    });
    return m.block(done, [blk]);
  };

  /**
   * One run of indexed definitions. Up to FLAT_CASES entries are one switch; more are
   * split into about √n groups of consecutive entries, an outer switch picking the group
   * and an inner one the entry, so blocks nest about 2√n deep rather than n (binaryen's
   * optimizer slows down sharply on deeply nested blocks).
   */
  const dispatch = (run: DefCode[]): X => {
    const codeOf = new Map<number, X[]>();
    for (const d of run) {
      const j = entryOf.get(d.def)!;
      const list = codeOf.get(j);
      if (list) list.push(d.code);
      else codeOf.set(j, [d.code]);
    }
    const leaves: SwitchItem[] = [...codeOf].map(([j, code]) => ({ entries: [j], code: () => code }));
    if (leaves.length <= FLAT_CASES) return switchOver(leaves);
    const size = Math.ceil(Math.sqrt(leaves.length));
    const groups: SwitchItem[] = [];
    for (let i = 0; i < leaves.length; i += size) {
      const part = leaves.slice(i, i + size);
      groups.push({ entries: part.flatMap((p) => p.entries), code: () => [switchOver(part)] });
    }
    return switchOver(groups);
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
