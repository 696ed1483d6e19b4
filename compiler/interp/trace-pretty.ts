// The text form of a trace, as OPA's topdown.PrettyTraceWithOpts writes it
// (v1/topdown/trace.go), for `eval --explain` (pretty), the REPL, the REST API's
// `?explain=…&pretty` and `regent test -v`:
//   - one row per event: an optional `file:row` column (`query:row` for the query;
//     long paths shortened as getShortenedFileNames does), the event text indented
//     `| ` per query depth, and optional variable columns: `exprVariables` lists the
//     variables the event's node names (a rule: its head) with their values
//     (`--var-values`), `locals` every binding of the event's query;
//   - columns padded to their widest cell plus four, then one space;
//   - `indent` writes the table through an indenting writer as `opa test`'s reporter
//     does: it indents at the start of every write, so each cell gets the indent in
//     front and each line ends in it before the newline.
import type { Term } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { formatBody } from '../ast/print.js';
import { formatTerm as formatValue } from '../../runtime/value/format.js';
import type { TraceEvent, TraceNode } from './trace.js';

export interface PrettyOptions {
  /** Prefix each line with `file:row` (`query:row` for the query), as PrettyTraceWithLocation. */
  locations?: boolean;
  /** A column of the variables in the event's node with their values (OPA's ExprVariables, `--var-values`). */
  exprVariables?: boolean;
  /** A column of every local binding `{x: 1, …}` (OPA's LocalVariables). */
  locals?: boolean;
  /** Spaces an indenting writer puts before every cell and before each newline. */
  indent?: number;
}

const COLUMN_PADDING = 4;
const MAX_IDEAL_LOCATION_WIDTH = 64;
const MIN_LOCATION_WIDTH = 5; // "query"
const MAX_EXPR_VAR_WIDTH = 32;

/** Each event's indentation depth: its query's, one more than its parent query's. */
export function eventDepths(events: TraceEvent[]): number[] {
  const depths = new Map<number, number>();
  return events.map((e) => {
    let depth = depths.get(e.queryId) ?? 0;
    if (depth === 0) {
      depth = (depths.get(e.parentId) ?? 0) + 1;
      depths.set(e.queryId, depth);
    }
    return depth;
  });
}

/** The text of a trace, one line per event (each ending in a newline). */
export function prettyTrace(events: TraceEvent[], opts: PrettyOptions = {}): string {
  const depths = eventDepths(events);
  const aliases = opts.locations ? fileAliases(events) : new Map<string, string>();
  const rows: string[][] = [];
  for (const [i, e] of events.entries()) {
    const row: string[] = [];
    if (opts.locations) row.push(locationText(e.location, aliases));
    row.push(eventText(e, depths[i]!));
    if (opts.exprVariables) row.push(bindingsCell(exprLocals(e)));
    if (opts.locals) row.push(bindingsCell(e.locals));
    rows.push(row);
  }
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const pad = ' '.repeat(opts.indent ?? 0);
  return rows
    .map((r) => r.map((cell, i) => pad + (i < r.length - 1 ? cell.padEnd(widths[i]! + COLUMN_PADDING) + ' ' : cell)).join('') + pad + '\n')
    .join('');
}

function locationText(l: Location | undefined, aliases: Map<string, string>): string {
  if (!l) return '';
  return l.file === '' ? `query:${l.row}` : `${aliases.get(l.file) ?? l.file}:${l.row}`;
}

/** `| | Eval x = 1`: the event's op and node at its depth. */
export function eventText(e: TraceEvent, depth: number): string {
  const spaces = e.op === 'Enter' || (e.op === 'Redo' && e.node?.type !== 'expr') ? depth : depth + 1;
  const pad = spaces > 1 ? '| '.repeat(spaces - 1) : '';
  if (e.op === 'Note') return `${pad}Note ${JSON.stringify(e.message ?? '')}`;
  return `${pad}${e.op} ${nodeText(e.node)}${e.message ? ' ' + e.message : ''}`;
}

function nodeText(n: TraceNode | undefined): string {
  if (!n) return '';
  switch (n.type) {
    case 'rule':
      return n.path;
    case 'body':
      return formatBody(n.node);
    case 'expr':
      return formatBody([n.node]);
  }
}

export function truncate(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) + '...' : s;
}

/** `{x: 1, y: "a"}`, sorted by name, each value cut at 32 characters. */
function bindingsCell(locals: TraceEvent['locals']): string {
  const sorted = [...locals].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return '{' + sorted.map((l) => `${l.name}: ${truncate(formatValue(l.value), MAX_EXPR_VAR_WIDTH)}`).join(', ') + '}';
}

/** The event's locals named in its node (a rule: in its head), as exprLocalVars. */
function exprLocals(e: TraceEvent): TraceEvent['locals'] {
  const node = e.node?.type === 'rule' ? e.node.node.head : e.node?.node;
  const names = new Set(varTerms(node).map((t) => (t as { name: string }).name));
  return e.locals.filter((l) => names.has(l.name));
}

/** The variable terms in a node, skipping call operators and comprehension bodies. */
export function varTerms(node: unknown, out: Term[] = []): Term[] {
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

/** Each file's name in the location column: shortened when the longest location passes 64 characters. */
function fileAliases(events: TraceEvent[]): Map<string, string> {
  const files: string[] = [];
  let longest = 0;
  for (const e of events) {
    const l = e.location;
    if (!l) continue;
    longest = Math.max(longest, (l.file === '' ? MIN_LOCATION_WIDTH : l.file.length) + String(l.row).length + 1);
    if (l.file !== '' && !files.includes(l.file)) files.push(l.file);
  }
  if (files.length > 0 && longest > MAX_IDEAL_LOCATION_WIDTH) return shortenPaths(files, longest);
  return new Map(files.map((f) => [f, f]));
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
