// The compiler pipeline's shared state and the Pass interface. Each pass reads and
// replaces parts of the state; `dump` prints what it produced (for --dump-passes).
import type { Module } from '../ast/nodes.js';
import type { CompileOptions } from '../api.js';
import type { RegoError } from '../source/diagnostics.js';
import type { PolicyIR } from '../ir/ir.js';
import type { RuleTree } from './rule-tree.js';

export interface CompileState {
  opts: CompileOptions;
  modules: Module[];
  errors: RegoError[];
  /** Rules grouped by path (set by the `rule-tree` pass). */
  tree?: RuleTree;
  /** The planned IR (set by the `plan` pass). */
  ir?: PolicyIR;
}

export interface Pass {
  name: string;
  /** Transform the state; push errors into `state.errors` rather than throwing. */
  run(state: CompileState): void;
  /** Optional printable form of what the pass produced. */
  dump?(state: CompileState): unknown;
}

/** The package path of a module as strings, without the leading `data`. */
export function packagePath(m: Module): string[] {
  const out: string[] = [];
  m.package.path.forEach((t, i) => {
    if (t.kind === 'var') {
      if (!(i === 0 && t.name === 'data')) out.push(t.name);
    } else if (t.kind === 'string') out.push(t.value);
    else if (t.kind === 'ref') {
      // Some parsers give the package as a single ref term.
      if (t.head.kind === 'var' && t.head.name !== 'data') out.push(t.head.name);
      for (const p of t.path) if (p.kind === 'string') out.push(p.value);
    }
  });
  return out;
}
