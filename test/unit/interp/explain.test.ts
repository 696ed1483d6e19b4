// explain() filters, the REST JSON form of events, and the pretty text. The notes
// cases are OPA's own lineage tests (v1/topdown/lineage/lineage_test.go); where the
// interpreter evaluates in a different order than OPA's topdown this is noted.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { eventJSON, explain, prettyTrace, traceQuery } from '../../../compiler/interp/index.js';
import { stringifyOpaJSON } from '../../../compiler/index.js';

function notes(module: string): string {
  const p = compile([{ file: 'test.rego', text: 'package test\n' + module }]);
  const { events, error } = traceQuery(p, 'data.test.p = x');
  expect(error).toBeUndefined();
  return prettyTrace(explain(events, 'notes')).trim();
}

describe('explain=notes (OPA lineage cases)', () => {
  it('lineage', () => {
    expect(notes('p if { q }\nq if { r }\nr if { trace("R") }')).toBe(
      ['Enter data.test.p = x', '| Enter data.test.p', '| | Enter data.test.q', '| | | Enter data.test.r', '| | | | Note "R"'].join('\n'),
    );
  });

  it('conjunction', () => {
    expect(notes('p if { trace("P1"); trace("P2") }')).toBe(
      ['Enter data.test.p = x', '| Enter data.test.p', '| | Note "P1"', '| | Note "P2"'].join('\n'),
    );
  });

  it('conjunction (multiple enters)', () => {
    expect(notes('p if { q; r }\nq if { trace("Q") }\nr if { trace("Q") }')).toBe(
      ['Enter data.test.p = x', '| Enter data.test.p', '| | Enter data.test.q', '| | | Note "Q"', '| | Enter data.test.r', '| | | Note "Q"'].join('\n'),
    );
  });

  it('disjunction (failure): every definition is entered (group evaluated before the query continues)', () => {
    // OPA prints `Redo data.test.p = x` before the second definition because topdown
    // yields each definition's value to the query as it goes; rule groups here are
    // evaluated whole (as the JS back end does), so the query is not re-entered.
    expect(notes('p = x if { x := true; trace("P1") }\np = x if { x := true; trace("P2"); false }\np = x if { x := true; trace("P3") }')).toBe(
      ['Enter data.test.p = x', '| Enter data.test.p', '| | Note "P1"', '| Enter data.test.p', '| | Note "P2"', '| Enter data.test.p', '| | Note "P3"'].join('\n'),
    );
  });

  it('disjunction (iteration)', () => {
    expect(notes('q contains 1\nq contains 2\np if { q[x]; trace(sprintf("x=%d", [x])) }')).toBe(
      ['Enter data.test.p = x', '| Enter data.test.p', '| | Note "x=1"'].join('\n'),
    );
  });

  it('negation', () => {
    expect(notes('p if { not q }\nq = false if { trace("Q") }')).toBe(
      ['Enter data.test.p = x', '| Enter data.test.p', '| | Enter data.test.q', '| | | Enter data.test.q', '| | | | Note "Q"'].join('\n'),
    );
  });

  it('fail', () => {
    expect(notes('p if { not q }\nq if { trace("P"); 1 = 2 }')).toBe(
      ['Enter data.test.p = x', '| Enter data.test.p', '| | Enter data.test.q', '| | | Enter data.test.q', '| | | | Note "P"'].join('\n'),
    );
  });

  it('comprehensions', () => {
    expect(notes('p if { [true | true; trace("X")] }')).toBe(
      ['Enter data.test.p = x', '| Enter data.test.p', '| | Enter true; trace("X")', '| | | Note "X"'].join('\n'),
    );
  });
});

describe('explain modes and output forms', () => {
  // The two definitions test different refs, so no rule index skips either (see the
  // rule-index tests below for an indexed group's trace).
  const p = compile([{ file: 'x.rego', text: 'package x\nallow if { input.user == "admin" }\nallow if { trace("no admin"); input.name == "root" }' }]);

  it('fails keeps each Fail with the Enter events leading to it', () => {
    const { events } = traceQuery(p, 'data.x.allow');
    const text = prettyTrace(explain(events, 'fails')).trim().split('\n');
    // OPA evaluates a one-term query as `term = $term1`, shown as `term = _`.
    expect(text[0]).toBe('Enter data.x.allow = _');
    expect(text).toContain('| Enter data.x.allow');
    expect(text).toContain('| | Fail input.user == "admin"');
    expect(text.at(-1)).toBe('| Fail data.x.allow = _');
  });

  it('full and debug keep everything', () => {
    const { events } = traceQuery(p, 'data.x.allow');
    expect(explain(events, 'full')).toEqual(events);
    expect(explain(events, 'debug')).toEqual(events);
  });

  it('prints locations as file:row and query:row', () => {
    const { events } = traceQuery(p, 'data.x.allow');
    const lines = prettyTrace(events, { locations: true }).split('\n');
    expect(lines[0]).toMatch(/^query:1 +Enter data\.x\.allow = _$/);
    expect(lines[2]).toMatch(/^x\.rego:2 +\| Enter data\.x\.allow$/);
    // The location column is padded to the widest cell plus four, then a space.
    expect(lines[0]!.indexOf('Enter')).toBe('x.rego:3'.length + 5);
  });

  it('serializes events as the REST API does', () => {
    const { events } = traceQuery(p, 'data.x.allow');
    const json = JSON.parse(stringifyOpaJSON(events.slice(0, 2).map(eventJSON), ''));
    expect(json[0]).toEqual({
      op: 'enter',
      query_id: 0,
      parent_id: 0,
      type: 'body',
      // OPA's capture of a one-term query: `eq(data.x.allow, $term1)`.
      node: [
        {
          index: 0,
          terms: [
            { type: 'ref', value: [{ type: 'var', value: 'eq' }] },
            { type: 'ref', value: [{ type: 'var', value: 'data' }, { type: 'string', value: 'x' }, { type: 'string', value: 'allow' }] },
            { type: 'var', value: '$term1' },
          ],
        },
      ],
      locals: null,
    });
    expect(json[1].op).toBe('eval');
    expect(json[1].type).toBe('expr');
    const note = eventJSON(events.find((e) => e.op === 'Note')!);
    expect(note).toMatchObject({ op: 'note', type: '', node: null, message: 'no admin' });
  });
});
