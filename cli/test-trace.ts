// Traces in `regent test` reports, as OPA's tester and PrettyReporter show them:
//  * filterTrace: which events a result keeps (cmd/test.go filterTrace): with -v and
//    no --explain the lineage of Note and Fail events; with --explain MODE that mode's
//    filter (fails, notes, full, debug); otherwise the `fails` lineage.
//  * traceTable: topdown.PrettyTraceWithOpts written through the reporter's indenting
//    writer, which indents at the start of every write: each cell gets two spaces in
//    front and each line ends in two spaces (`  query:1       | Fail x  `). Location
//    columns shorten long file paths as OPA's getShortenedFileNames does. With
//    --var-values a third column lists the expression's variables with values.
//  * failureLine (--var-values): the last Fail event inside the test (not the query),
//    skipping `every` expressions: `  file:row:` and the expression's source text
//    padded to its column, with the values of its variables drawn under it (OPA's
//    PrettyEvent with PrettyVars). Values come from the event's locals, and from the
//    refs, calls and comprehensions the interpreter logged (cli/test-trace-values.ts).
import { explain, lineage, type ExplainMode, type TraceEvent } from '../compiler/index.js';
import { prettyTrace, truncate, varTerms } from '../compiler/interp/trace.js';
import { formatBody } from '../compiler/ast/print.js';
import { MAX_PRETTY_EXPR_VAR_WIDTH, tabsBefore, termInfos, type VarInfo } from './test-trace-values.js';
import { formatTerm as formatValue } from '../runtime/value/format.js';


/** The events a test result keeps for reporting (cmd/test.go filterTrace). */
export function filterTrace(events: TraceEvent[], opts: { verbose: boolean; explain?: ExplainMode }): TraceEvent[] {
  if (opts.explain === undefined && opts.verbose) return lineage(events, (e) => e.op === 'Note' || e.op === 'Fail');
  return explain(events, opts.explain ?? 'fails');
}

/** PrettyTraceWithOpts (locations on) as the reporter's indenting writer prints it, each line ending in "\n". */
export function traceTable(events: TraceEvent[], exprVariables = false): string {
  return prettyTrace(events, { locations: true, exprVariables, indent: 2 });
}

/** Write `text` through an indenting writer of `by` spaces: indent at the start and after each inner newline. */
export function indentWrite(text: string, by: number): string {
  const pad = ' '.repeat(by);
  const lines = text.split('\n');
  return lines.map((line, i) => (i === lines.length - 1 && line === '' ? '' : pad + line)).join('\n');
}

/** The source text of the expression starting at `offset`: up to the end of its line, brackets balanced. */
export function exprSourceText(src: string, offset: number): string {
  let depth = 0;
  let i = offset;
  for (; i < src.length; i++) {
    const c = src[i]!;
    if (c === '"') {
      for (i++; i < src.length && src[i] !== '"' && src[i] !== '\n'; i++) if (src[i] === '\\') i++;
    } else if (c === '`') {
      for (i++; i < src.length && src[i] !== '`'; i++);
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) break;
      depth--;
    } else if (c === '#') {
      if (depth === 0) break;
      while (i + 1 < src.length && src[i + 1] !== '\n') i++;
    } else if (depth === 0 && (c === '\n' || c === ';')) break;
  }
  return src.slice(offset, i).trimEnd();
}

/** PrettyEvent with PrettyVars: the padded expression text, then the variables' values drawn under it. */
export function prettyEvent(e: TraceEvent, sources: Map<string, string>): string {
  const l = e.location!;
  const src = sources.get(l.file);
  const expr = e.node?.type === 'expr' ? e.node.node : undefined;
  const text = src !== undefined ? exprSourceText(src, l.offset) : expr ? formatBody([expr]) : '';
  const pad = tabsBefore(src, l);
  let out = Array.from({ length: Math.max(0, l.col - 1) }, (_, i) => (pad.includes(i + 1) ? '\t' : ' ')).join('') + text;
  if (!expr) return out;
  // Refs, calls and comprehensions first (test-trace-values.ts), then the variables;
  // one entry per title, a later one only replacing an entry without a value (as OPA).
  const vars = new Map<string, VarInfo>();
  for (const info of termInfos(e, expr, src)) if (!vars.get(info.title)?.value) vars.set(info.title, info);
  for (const t of varTerms(expr)) {
    const name = (t as { name: string }).name;
    const local = e.locals.find((x) => x.name === name);
    if (local === undefined || vars.get(name)?.value !== undefined) continue;
    vars.set(name, { title: name, value: truncate(formatValue(local.value), MAX_PRETTY_EXPR_VAR_WIDTH), row: t.loc.row, col: t.loc.col, tabs: tabsBefore(src, t.loc) });
  }
  return out + prettyVars([...vars.values()]);
}

function prettyVars(infos: VarInfo[]): string {
  if (infos.length === 0) return '';
  if (infos.some((v) => v.tabs.length > 0) && new Set(infos.map((v) => v.row)).size > 1) {
    const byName = [...infos].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
    return '\n\nWhere:\n' + byName.map((v) => `\n${v.title}: ${v.value ?? 'undefined'}`).join('');
  }
  const byCol = [...infos].sort((a, b) => (a.col !== b.col ? a.col - b.col : a.row !== b.row ? b.row - a.row : a.title < b.title ? -1 : 1));
  let out = '\n' + arrows(byCol, -1);
  for (let i = byCol.length - 1; i >= 0; i--) out += '\n' + arrows(byCol, i);
  return out;
}

/** One line under the expression: `|` per variable, the value of the one at `valueAt`. */
function arrows(l: VarInfo[], valueAt: number): string {
  const slice = valueAt >= 0 ? l.slice(0, valueAt + 1) : l;
  let out = '';
  let prevCol = 0;
  let first = true;
  slice.forEach((info, i) => {
    const last = i >= slice.length - 1;
    if (!last && info.col === l[i + 1]!.col) return;
    const spaces = i > 0 && !first ? info.col - prevCol - 1 : info.col - 1;
    for (let j = 0; j < spaces; j++) out += info.tabs.includes(j + prevCol + 1) ? '\t' : ' ';
    if (last && valueAt >= 0) {
      const shared = (i > 0 && info.col === l[i - 1]!.col) || (i < l.length - 1 && info.col === l[i + 1]!.col);
      out += shared ? `${info.title}: ${info.value ?? 'undefined'}` : (info.value ?? 'undefined');
    } else out += '|';
    prevCol = info.col;
    first = false;
  });
  return out;
}

/**
 * printFailure's failure line: `  file:row:` and the failing expression, or '' when there
 * is none; written `by` spaces in (a test case's, under its lineage), where each write
 * of OPA's indenting writer starts indented, the closing newline included.
 */
export function failureLine(events: TraceEvent[], sources: Map<string, string>, by = 0): string {
  const pad = ' '.repeat(by);
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.op !== 'Fail' || !e.location || e.queryId === 0) continue;
    if (e.node?.type === 'expr' && e.node.node.body.type === 'every') continue;
    return `${pad}  ${e.location.file}:${e.location.row}:\n` + indentWrite(prettyEvent(e, sources), by + 4) + pad + '\n';
  }
  return '';
}
