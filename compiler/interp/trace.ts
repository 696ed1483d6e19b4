// Trace events as OPA's topdown tracer emits them (v1/topdown/trace.go), and the
// three ways they are shown:
//   - explain(events, mode): the `explain=notes|fails|full|debug` filters. `notes`
//     and `fails` keep each Note/Fail event together with the chain of Enter/Redo
//     events (of rules and bodies) that led to it, walking parent query ids back to
//     the root, as OPA's lineage.Filter does; `full` drops nothing we emit (OPA
//     drops Unify events, which we never produce); `debug` is everything.
//   - eventJSON(e): the REST API form `{op, query_id, parent_id, type, node,
//     locals, message?}` with `op` lower-cased and `node` as OPA AST JSON.
//   - prettyTrace(events, opts): the text `opa eval --explain=…` prints
//     (trace-pretty.ts).
import type { Body, Expr, Rule, Term } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { typeName, type Value } from '../../runtime/value/value.js';
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
  /**
   * On a Fail event: the values the expression's refs, calls and comprehensions took
   * in its last attempt (undefined when one was undefined), by source term
   * (compiler/plan/origins.ts); what `test --var-values` draws besides the locals.
   */
  values?: TermValue[];
}

/** A source term of a traced expression and the value it took. */
export interface TermValue {
  term: Term;
  value: Value | undefined;
  /** A rule's value (a virtual document), not a base-data read. */
  virtual: boolean;
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

export { eventDepths, eventText, prettyTrace, varTerms, truncate, type PrettyOptions } from './trace-pretty.js';
