// What `regent test --var-values` draws under a failing expression besides its local
// variables (cli/test-trace.ts prettyEvent): the values its refs, calls and
// comprehensions took in the failed attempt, which the interpreter logs on the Fail
// event (TraceEvent.values). Which of them OPA shows follows from how its compiler
// rewrites a test's expressions (cmd/test_test.go TestFailVarValues):
//  * refs to rules and data (`a == b`, `data.x == y`, `p with input.x as 2`), but
//    under `not` only rules (their values are in OPA's virtual cache; base data is not);
//  * calls and refs nested in the expression's own call (`y + z` and `y[2]` in
//    `x == y[2] + z`), titled by their source text; not refs into locals compared
//    directly (`tc.data == tc.expected.data` shows only `tc`);
//  * comprehensions, by their value;
//  * a term logged as undefined shows `undefined`; a term not evaluated (the attempt
//    failed before it) shows nothing.
import type { Expr, Term } from '../compiler/ast/nodes.js';
import type { TermValue, TraceEvent } from '../compiler/interp/trace.js';
import { truncate } from '../compiler/interp/trace.js';
import { walk } from '../compiler/ast/walk.js';
import type { Location } from '../compiler/source/location.js';
import { formatTerm as formatValue } from '../runtime/value/format.js';

export const MAX_PRETTY_EXPR_VAR_WIDTH = 64;

/** One value drawn under the expression: its title (source text), position and value text. */
export interface VarInfo {
  title: string;
  value?: string;
  row: number;
  col: number;
  tabs: number[];
}

/** Columns (1-based) of the tabs before `col` on the location's line. */
export function tabsBefore(src: string | undefined, l: Location): number[] {
  if (src === undefined) return [];
  const start = src.lastIndexOf('\n', l.offset - 1) + 1;
  const out: number[] = [];
  for (let i = start; i < l.offset; i++) if (src[i] === '\t') out.push(i - start + 1);
  return out;
}

type Place = 'operand' | 'nested';

/** The refs, calls and comprehensions of `expr` OPA draws, with the values logged on event `e`. */
export function termInfos(e: TraceEvent, expr: Expr, src: string | undefined): VarInfo[] {
  const logged = new Map<string, TermValue>();
  for (const tv of e.values ?? []) logged.set(termKey(tv.term), tv);
  const out: VarInfo[] = [];
  const show = (t: Term): void => {
    const tv = logged.get(termKey(t));
    if (tv === undefined) return;
    if (expr.negated && !tv.virtual && t.kind === 'ref') return;
    const value = tv.value === undefined ? undefined : truncate(formatValue(tv.value), MAX_PRETTY_EXPR_VAR_WIDTH);
    out.push({ title: src !== undefined ? termSourceText(src, t) : '', ...(value !== undefined ? { value } : {}), row: t.loc.row, col: t.loc.col, tabs: tabsBefore(src, t.loc) });
  };
  const visit = (t: Term, place: Place): void => {
    switch (t.kind) {
      case 'ref':
        if ((t.head.kind === 'var' && t.head.name === 'data') || place === 'nested') show(t);
        for (const p of t.path) visit(p, 'nested');
        return;
      case 'call':
        show(t);
        for (const a of t.args) visit(a, 'nested');
        return;
      case 'arraycomp':
      case 'setcomp':
      case 'objectcomp':
        show(t);
        return;
      case 'array':
      case 'set':
        for (const x of t.items) visit(x, place);
        return;
      case 'object':
        for (const [k, v] of t.entries) {
          visit(k, place);
          visit(v, place);
        }
        return;
      default:
        return;
    }
  };
  if (expr.body.type === 'term') {
    const top = expr.body.term;
    // The expression's own call (`==`, `in`, …) is not drawn; its operands are.
    if (top.kind === 'call') for (const a of top.args) visit(a, 'operand');
    else visit(top, 'operand');
  }
  for (const w of expr.with) visit(w.value, 'operand');
  return out;
}

function termKey(t: Term): string {
  return `${t.kind}@${t.loc.file}:${t.loc.offset}`;
}

/** The source text of term `t`: from its first character through its last token and the brackets that close it. */
export function termSourceText(src: string, t: Term): string {
  let last = t.loc.offset;
  walk(t, (n) => {
    const l = (n as { loc?: Location }).loc;
    if (l && l.file === t.loc.file && l.offset > last) last = l.offset;
  });
  let depth = 0;
  let i = t.loc.offset;
  const end = tokenEnd(src, last);
  // Brackets opened before the last token must close after it.
  for (; i < end; i = skipToken(src, i)) {
    const c = src[i]!;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  while (depth > 0 && i < src.length) {
    const c = src[i]!;
    if (c === ')' || c === ']' || c === '}') depth--;
    i++;
  }
  return src.slice(t.loc.offset, i);
}

/** The end of the token at `i`: a string, a name or number, else one character. */
function tokenEnd(src: string, i: number): number {
  const c = src[i];
  if (c === '"') {
    let j = i + 1;
    for (; j < src.length && src[j] !== '"'; j++) if (src[j] === '\\') j++;
    return j + 1;
  }
  if (c === '`') return src.indexOf('`', i + 1) + 1 || src.length;
  const word = /[0-9]/.test(c ?? '') ? /[0-9.eE+-]/ : /[A-Za-z0-9_]/;
  let j = i;
  while (j < src.length && word.test(src[j]!)) j++;
  return j > i ? j : i + 1;
}

/** The position after the token (or character) at `i`, strings skipped whole. */
function skipToken(src: string, i: number): number {
  const c = src[i];
  return c === '"' || c === '`' ? tokenEnd(src, i) : i + 1;
}
