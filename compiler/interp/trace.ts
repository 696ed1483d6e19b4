// Trace events as OPA's topdown tracer emits them (v1/topdown/trace.go), and the
// three ways they are shown:
//   - explain(events, mode): the `explain=notes|fails|full|debug` filters. `notes`
//     and `fails` keep each Note/Fail event together with the chain of Enter/Redo
//     events (of rules and bodies) that led to it, walking parent query ids back to
//     the root, as OPA's lineage.Filter does; `full` drops nothing we emit (OPA
//     drops Unify events, which we never produce); `debug` is everything.
//   - eventJSON(e): the REST API form `{op, query_id, parent_id, type, node,
//     locals, message?}` with `op` lower-cased and `node` as OPA AST JSON.
//   - prettyTrace(events, {locations}): the text `opa eval --explain=…` prints,
//     one line per event, indented `| ` per query depth, with an optional
//     `file:row` column (PrettyTraceWithLocation).
import type { Body, Expr, Rule } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { typeName, type Value } from '../../runtime/value/value.js';
import { formatBody } from '../ast/print.js';
import { formatTerm as formatValue } from '../../runtime/value/format.js';
import { bodyJSON, exprJSON, ruleJSON, valueJSON, type IndexOf, type JSONNode } from './node-json.js';

/** `Save`: partial evaluation kept an expression in the residual (OPA's SaveOp). */
export type TraceOp = 'Enter' | 'Exit' | 'Eval' | 'Fail' | 'Redo' | 'Note' | 'Save';
export type ExplainMode = 'notes' | 'fails' | 'full' | 'debug';
export const EXPLAIN_MODES: readonly ExplainMode[] = ['notes', 'fails', 'full', 'debug'];

export type TraceNode = { type: 'expr'; node: Expr } | { type: 'rule'; node: Rule; path: string } | { type: 'body'; node: Body };

export interface TraceEvent {
  op: TraceOp;
  queryId: number;
  parentId: number;
  /** What the event is about; absent for Note events (as in OPA). */
  node?: TraceNode;
  /** Variable bindings of the query at emission time (user-visible names only). */
  locals: { name: string; value: Value }[];
  /** The note text of a Note event. */
  message?: string;
  location?: Location;
  /** Expression index lookup for the JSON form. */
  indexOf?: IndexOf;
}

// ---------------------------------------------------------------- explain

/** Filter a trace as `explain=<mode>` does. */
export function explain(events: TraceEvent[], mode: ExplainMode): TraceEvent[] {
  switch (mode) {
    case 'debug':
    case 'full':
      return events;
    case 'notes':
      return lineage(events, (e) => e.op === 'Note');
    case 'fails':
      return lineage(events, (e) => e.op === 'Fail');
  }
}

/**
 * Keep the events `keep` selects, each preceded by the Enter/Redo events of the
 * rules and bodies on its query path. The path memory resets after each kept
 * event, so shared ancestors are not repeated until they are entered again.
 */
export function lineage(events: TraceEvent[], keep: (e: TraceEvent) => boolean): TraceEvent[] {
  const out: TraceEvent[] = [];
  let last = new Map<number, TraceEvent>();
  for (const e of events) {
    if (keep(e)) {
      const path = [e];
      let cur = last.get(e.queryId);
      let prev: TraceEvent | undefined;
      while (cur !== undefined && cur !== prev) {
        path.push(cur);
        prev = cur;
        cur = last.get(cur.parentId);
      }
      for (let i = path.length - 1; i >= 0; i--) out.push(path[i]!);
      last = new Map();
    }
    if ((e.op === 'Enter' || e.op === 'Redo') && (e.node?.type === 'rule' || e.node?.type === 'body')) last.set(e.queryId, e);
  }
  return out;
}

// ---------------------------------------------------------------- JSON

/** One event as the REST API returns it (`explanation` array element). */
export function eventJSON(e: TraceEvent): Record<string, JSONNode> {
  const out: Record<string, JSONNode> = {
    op: e.op.toLowerCase(),
    query_id: e.queryId,
    parent_id: e.parentId,
    type: e.node?.type ?? '',
    node: e.node ? nodeJSON(e.node, e.indexOf) : null,
    locals: e.locals.length > 0 ? e.locals.map((l) => ({ key: { type: 'var', value: l.name }, value: valueJSON(l.value) })) : null,
  };
  if (e.message) out.message = e.message;
  return out;
}

/** One event as `opa eval --format json` prints it (Go field names of topdown.Event). */
export function evalEventJSON(e: TraceEvent): Record<string, JSONNode> {
  return {
    Node: e.node ? nodeJSON(e.node, e.indexOf) : null,
    Location: e.location ? { file: e.location.file, row: e.location.row, col: e.location.col } : null,
    Locals: e.locals.length > 0 ? e.locals.map((l) => ({ name: l.name, type: typeName(l.value), value: valueJSON(l.value) })) : null,
    LocalMetadata: null,
    Ref: null,
    Op: e.op,
    Message: e.message ?? '',
    QueryID: e.queryId,
    ParentID: e.parentId,
  };
}

function nodeJSON(n: TraceNode, indexOf?: IndexOf): JSONNode {
  switch (n.type) {
    case 'expr':
      return exprJSON(n.node, indexOf);
    case 'rule':
      return ruleJSON(n.node, indexOf);
    case 'body':
      return bodyJSON(n.node, indexOf);
  }
}

// ---------------------------------------------------------------- pretty

export interface PrettyOptions {
  /** Prefix each line with `file:row` (`query:row` for the query), as PrettyTraceWithLocation. */
  locations?: boolean;
  /** Append the event's local bindings `{x: 1, …}`. */
  locals?: boolean;
}

const COLUMN_PADDING = 4;

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
  const rows: string[][] = [];
  for (const [i, e] of events.entries()) {
    const depth = depths[i]!;
    const row: string[] = [];
    if (opts.locations) row.push(locationText(e.location));
    row.push(eventText(e, depth));
    if (opts.locals) row.push('{' + [...e.locals].sort((a, b) => (a.name < b.name ? -1 : 1)).map((l) => `${l.name}: ${formatValue(l.value)}`).join(', ') + '}');
    rows.push(row);
  }
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i]! + COLUMN_PADDING) + ' ' : cell)).join('') + '\n')
    .join('');
}

function locationText(l: Location | undefined): string {
  if (!l) return '';
  return l.file === '' ? `query:${l.row}` : `${l.file}:${l.row}`;
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
