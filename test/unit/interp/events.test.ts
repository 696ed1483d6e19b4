// Event sequences of the reference interpreter for small policies: Enter/Eval/
// Exit/Redo/Fail ordering, query ids and parent ids, Note events from trace(),
// and agreement of plain evaluation with the closure back end.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { prepareInterpreted, traceQuery, type TraceEvent } from '../../../compiler/interp/index.js';
import { fromJS } from '../../../runtime/value/index.js';
import { formatBody } from '../../../compiler/ast/print.js';

function policy(text: string) {
  return compile([{ file: 'test.rego', text: 'package test\n' + text }]);
}

/** `op qid/parent node` per event, nodes printed compactly. */
function summary(events: TraceEvent[]): string[] {
  return events.map((e) => {
    const n = e.node;
    const text = !n ? JSON.stringify(e.message) : n.type === 'rule' ? n.path : n.type === 'body' ? `{${formatBody(n.node)}}` : formatBody([n.node]);
    return `${e.op} ${e.queryId}/${e.parentId} ${text}`;
  });
}

describe('reference interpreter events', () => {
  it('brackets a query and a rule body with Enter/Exit and evaluates each expression', () => {
    const p = policy('p if { x := 1; x > 0 }');
    const { rows, events } = traceQuery(p, 'data.test.p');
    expect(rows.map((r) => r.expressions[0]!.value)).toEqual([true]);
    expect(summary(events)).toEqual([
      'Enter 0/0 {data.test.p = _}',
      'Eval 0/0 data.test.p = _',
      'Enter 1/0 data.test.p',
      'Eval 1/0 x := 1',
      'Eval 1/0 x > 0',
      'Exit 1/0 data.test.p',
      'Exit 0/0 {data.test.p = _}',
      'Redo 0/0 {data.test.p = _}',
      'Redo 0/0 data.test.p = _',
    ]);
  });

  it('gives each rule body its own query id, parented by the referring query', () => {
    const p = policy('p if { q; r }\nq if { true }\nr if { true }');
    const { events } = traceQuery(p, 'data.test.p');
    const enters = events.filter((e) => e.op === 'Enter').map((e) => [e.queryId, e.parentId, e.node?.type === 'rule' ? e.node.path : 'query']);
    expect(enters).toEqual([
      [0, 0, 'query'],
      [1, 0, 'data.test.p'],
      [2, 1, 'data.test.q'],
      [3, 1, 'data.test.r'],
    ]);
  });

  it('emits Fail for an expression without solutions and no Exit for its rule', () => {
    const p = policy('p if { 1 == 2 }');
    const { rows, events } = traceQuery(p, 'data.test.p');
    expect(rows).toEqual([]);
    expect(summary(events)).toEqual([
      'Enter 0/0 {data.test.p = _}',
      'Eval 0/0 data.test.p = _',
      'Enter 1/0 data.test.p',
      'Eval 1/0 1 == 2',
      'Fail 1/0 1 == 2',
      'Fail 0/0 data.test.p = _',
    ]);
  });

  it('emits Redo when backtracking into an iteration', () => {
    const p = policy('s contains x if { some x in [1, 2] }');
    const { events } = traceQuery(p, 'data.test.s');
    expect(summary(events).slice(2)).toEqual([
      'Enter 1/0 data.test.s',
      'Eval 1/0 some x in [1, 2]',
      'Exit 1/0 data.test.s',
      'Redo 1/0 data.test.s',
      'Redo 1/0 some x in [1, 2]',
      'Exit 1/0 data.test.s',
      'Redo 1/0 data.test.s',
      'Redo 1/0 some x in [1, 2]',
      'Exit 0/0 {data.test.s = _}',
      'Redo 0/0 {data.test.s = _}',
      'Redo 0/0 data.test.s = _',
    ]);
  });

  it('records trace() notes in the query that called it', () => {
    const p = policy('p if { trace("hello"); q }\nq if { trace(sprintf("n=%d", [1])) }');
    const { events } = traceQuery(p, 'data.test.p');
    const notes = events.filter((e) => e.op === 'Note');
    expect(notes.map((e) => [e.message, e.queryId, e.parentId, e.location?.row])).toEqual([
      ['hello', 1, 0, 2],
      ['n=1', 2, 1, 3],
    ]);
  });

  it('runs negations and comprehensions as child queries', () => {
    const p = policy('p if { not q; count([x | some x in [1]]) == 1 }\nq if { false }');
    const { events } = traceQuery(p, 'data.test.p');
    const s = summary(events);
    expect(s).toContain('Enter 2/1 {data.test.q}');
    expect(s).toContain('Enter 3/2 data.test.q');
    expect(s).toContain('Fail 3/2 false');
    expect(s).toContain('Enter 4/1 {some x in [1]}');
    expect(s).toContain('Exit 4/1 {some x in [1]}');
  });

  it('reports locals of the query frame by user variable name', () => {
    const p = policy('');
    const { events } = traceQuery(p, 'x := 1; y := x + 1');
    const last = events.filter((e) => e.op === 'Exit').at(-1)!;
    expect(last.locals.map((l) => [l.name, l.value])).toEqual([
      ['x', 1],
      ['y', 2],
    ]);
  });

  it('stops with the error and keeps the events up to it', () => {
    const p = policy('p := 1 if { true }\np := 2 if { true }');
    const r = traceQuery(p, 'data.test.p');
    expect((r.error as { code?: string }).code).toBe('eval_conflict_error');
    expect(r.events.length).toBeGreaterThan(3);
  });

  it('agrees with the closure back end without tracing', () => {
    const p = policy('a[k] := v if { some k, v in input }\nb contains k if { a[k] > 1 }');
    const input = fromJS({ x: 1, y: 2, z: 3 });
    for (const q of ['data.test', 'data.test.b[k]', 'x := data.test.a[_]']) {
      expect(prepareInterpreted(p, q).eval({ input })).toEqual(p.prepare(q).eval({ input }));
    }
  });
});
