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
//    PrettyEvent with PrettyVars). Values come from the event's locals.
import { explain, lineage, type ExplainMode, type TraceEvent } from '../compiler/index.js';
import { eventDepths, eventText } from '../compiler/interp/trace.js';
import { formatBody } from '../compiler/ast/print.js';
import type { Term } from '../compiler/ast/nodes.js';
import type { Location } from '../compiler/source/location.js';
import { formatTerm as formatValue } from '../runtime/value/format.js';

const MAX_IDEAL_LOCATION_WIDTH = 64;
const MAX_EXPR_VAR_WIDTH = 32;
const MAX_PRETTY_EXPR_VAR_WIDTH = 64;

/** The events a test result keeps for reporting (cmd/test.go filterTrace). */
export function filterTrace(events: TraceEvent[], opts: { verbose: boolean; explain?: ExplainMode }): TraceEvent[] {
  if (opts.explain === undefined && opts.verbose) return lineage(events, (e) => e.op === 'Note' || e.op === 'Fail');
  return explain(events, opts.explain ?? 'fails');
}

function truncate(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) + '...' : s;
}

/** OPA's internal/strings TruncateFilePaths: swap a long common middle part for `...`. */
export function shortenPaths(files: string[], longest: number): Map<string, string> {
  const dirs = files.map((p) => {
    const d = (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) || '/' : '.').replace(/^\//, '');
    const i = d.indexOf('/');
    return i > 0 ? d.slice(i + 1) : d;
  });
  let lcs = dirs.length > 1 ? longestCommonSubstring(dirs) : dirs[0]!;
  const diff = MAX_IDEAL_LOCATION_WIDTH - (longest - lcs.length + 3);
  if (diff > 0) lcs = diff > lcs.length ? '' : lcs.slice(0, lcs.length - diff);
  return new Map(files.map((p) => [p, lcs.length > 3 ? p.replace(lcs, '...') : p]));
}

function longestCommonSubstring(xs: string[]): string {
  const shortest = xs.reduce((a, b) => (b.length < a.length ? b : a));
  for (let len = shortest.length; len > 0; len--) {
    for (let i = 0; i + len <= shortest.length; i++) {
      const sub = shortest.slice(i, i + len);
      if (xs.every((x) => x.includes(sub))) return sub;
    }
  }
  return '';
}

function fileAliases(events: TraceEvent[]): Map<string, string> {
  const files: string[] = [];
  let longest = 0;
  for (const e of events) {
    const l = e.location;
    if (!l) continue;
    longest = Math.max(longest, (l.file === '' ? 5 : l.file.length) + String(l.row).length + 1);
    if (l.file !== '' && !files.includes(l.file)) files.push(l.file);
  }
  if (files.length > 0 && longest > MAX_IDEAL_LOCATION_WIDTH) return shortenPaths(files, longest);
  return new Map(files.map((f) => [f, f]));
}

/** Names of the variables in a term tree, skipping call operators and comprehension bodies. */
function varTerms(node: unknown, out: Term[] = []): Term[] {
  if (node === null || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const x of node) varTerms(x, out);
    return out;
  }
  const n = node as { kind?: string } & Record<string, unknown>;
  if (n.kind === 'var') out.push(n as unknown as Term);
  if (n.kind === 'arraycomp' || n.kind === 'setcomp' || n.kind === 'objectcomp' || n.kind === 'rule' || n.kind === 'annotations') return out;
  for (const [k, v] of Object.entries(n)) if (k !== 'loc' && !(n.kind === 'call' && k === 'op')) varTerms(v, out);
  return out;
}

/** The `{x: 1, y: 2}` column: the event's locals named in its node (a rule: in its head). */
function exprVarsCell(e: TraceEvent): string {
  const node = e.node?.type === 'rule' ? e.node.node.head : e.node?.node;
  const names = new Set(varTerms(node).map((t) => (t as { name: string }).name));
  const vars = e.locals.filter((l) => names.has(l.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return '{' + vars.map((l) => `${l.name}: ${truncate(formatValue(l.value), MAX_EXPR_VAR_WIDTH)}`).join(', ') + '}';
}

/** PrettyTraceWithOpts (locations on) as the reporter's indenting writer prints it, each line ending in "\n". */
export function traceTable(events: TraceEvent[], exprVariables = false): string {
  const aliases = fileAliases(events);
  const depths = eventDepths(events);
  const rows: string[][] = [];
  for (const [i, e] of events.entries()) {
    const depth = depths[i]!;
    const l = e.location;
    const row = [l ? (l.file === '' ? `query:${l.row}` : `${aliases.get(l.file) ?? l.file}:${l.row}`) : '', eventText(e, depth)];
    if (exprVariables) row.push(exprVarsCell(e));
    rows.push(row);
  }
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => '  ' + (i < r.length - 1 ? c.padEnd(widths[i]! + 4) + ' ' : c)).join('') + '  \n').join('');
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

/** Columns (1-based) of the tabs before `col` on the location's line. */
function tabsBefore(src: string | undefined, l: Location): number[] {
  if (src === undefined) return [];
  const start = src.lastIndexOf('\n', l.offset - 1) + 1;
  const out: number[] = [];
  for (let i = start; i < l.offset; i++) if (src[i] === '\t') out.push(i - start + 1);
  return out;
}

interface VarInfo {
  title: string;
  value?: string;
  row: number;
  col: number;
  tabs: number[];
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
  const vars = new Map<string, VarInfo>();
  for (const t of varTerms(expr)) {
    const name = (t as { name: string }).name;
    const local = e.locals.find((x) => x.name === name);
    if (local === undefined || vars.has(name)) continue;
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

/** printFailure's failure line: `  file:row:` and the failing expression, or '' when there is none. */
export function failureLine(events: TraceEvent[], sources: Map<string, string>): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.op !== 'Fail' || !e.location || e.queryId === 0) continue;
    if (e.node?.type === 'expr' && e.node.node.body.type === 'every') continue;
    return `  ${e.location.file}:${e.location.row}:\n` + indentWrite(prettyEvent(e, sources), 4) + '\n';
  }
  return '';
}
