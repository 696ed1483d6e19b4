// Prepared partial evaluation (compiler/partial: preparePartial, cachedPartial):
// one planned query serves many inputs with the same residuals as planning afresh
// each time, the cache is keyed by query, unknowns and options (and is per policy),
// and recording a trace does not change the result.
import { describe, expect, it } from 'vitest';
import { bodyToJSON, cachedPartial, compile, moduleToJSON, partialEval, preparePartial, type PartialResult } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';

const POLICY = `package app

default allow := false

allow if input.user.role == "admin"

allow if {
	some g in input.user.groups
	g == data.app.owners[input.resource.owner]
	not input.resource.locked
}

deny contains msg if {
	input.resource.size > input.limit
	msg := sprintf("too big: %v", [input.resource.size])
}
`;

const json = (r: PartialResult) => JSON.stringify({ q: r.queries.map((b) => bodyToJSON(b)), s: r.support.map((m) => moduleToJSON(m, { comments: false })) });

describe('prepared partial evaluation', () => {
  const policy = compile([{ file: 'app.rego', text: POLICY }]);
  const data = fromJS({ app: { owners: { alice: 'eng', bob: 'ops' } } } as never);
  const inputs = [{}, { user: { role: 'admin' } }, { user: { role: 'dev', groups: ['eng'] }, limit: 3 }, { resource: { owner: 'bob', locked: false }, limit: 10 }, { user: { groups: [] }, resource: { owner: 'carol' } }];
  const queries: [string, string[]][] = [
    ['data.app.allow == true', ['input.resource']],
    ['data.app.allow == true', ['input.user']],
    ['x := data.app.deny', ['input.resource']],
    ['data.app.allow', ['input']],
  ];

  it('gives the residuals of a fresh plan for every input, from one prepared query', () => {
    for (const [query, unknowns] of queries) {
      const prepared = preparePartial(policy, query, { unknowns });
      for (const raw of inputs) {
        const input = fromJS(raw as never);
        const fresh = preparePartial(policy, query, { unknowns }).eval({ input, data });
        expect(json(prepared.eval({ input, data })), `${query} with ${unknowns} and ${JSON.stringify(raw)}`).toBe(json(fresh));
        expect(json(partialEval(policy, query, { unknowns, input, data }))).toBe(json(fresh));
      }
    }
  });

  it('caches per policy, query, unknowns and options', () => {
    const other = compile([{ file: 'app.rego', text: POLICY }]);
    const q = 'data.app.allow == true';
    const first = cachedPartial(other, q, { unknowns: ['input.user'] });
    expect(first.hit).toBe(false);
    expect(cachedPartial(other, q, { unknowns: ['input.user'] })).toEqual({ prepared: first.prepared, hit: true });
    expect(cachedPartial(other, q, { unknowns: ['input.resource'] }).hit).toBe(false);
    expect(cachedPartial(other, q, { unknowns: ['input.user'], disableInlining: ['data.app.allow'] }).hit).toBe(false);
    expect(cachedPartial(other, q, { unknowns: ['input.user'], nondeterministicBuiltins: true }).hit).toBe(false);
    expect(cachedPartial(policy, q, { unknowns: ['input.user'] }).prepared).not.toBe(first.prepared);
  });

  it('records a trace without changing the result, and times the planning stages on request', () => {
    const timers: Record<string, number> = {};
    const prepared = preparePartial(policy, 'data.app.allow == true', { unknowns: ['input.resource'], stageTimers: timers });
    expect(Object.keys(timers).sort()).toEqual(['timer_query_compile_stage_check_types_ns', 'timer_query_compile_stage_parse_ns', 'timer_query_compile_stage_plan_ns', 'timer_query_compile_stage_resolve_refs_ns']);
    const input = fromJS(inputs[2] as never);
    const plain = prepared.eval({ input, data });
    const traced = prepared.eval({ input, data, trace: true });
    expect(json(traced)).toBe(json(plain));
    expect(plain.events).toBeUndefined();
    const ops = traced.events!.map((e) => e.op);
    expect(ops[0]).toBe('Enter');
    expect(ops).toContain('Save');
    // Every Save is inside a query that was entered before it.
    const entered = new Set<number>();
    for (const e of traced.events!) {
      if (e.op === 'Enter') entered.add(e.queryId);
      if (e.op === 'Save') expect(entered.has(e.queryId)).toBe(true);
    }
  });

  it('traces negations, every and comprehensions as child queries of their rule body', () => {
    const p = compile([{ file: 'x.rego', text: 'package t\n\nok if {\n\tnot input.x == 1\n\tevery v in [1, 2] { v != input.y }\n\tcount([z | some z in [1, 2, 3]; z > input.m]) > 0\n}\n' }]);
    const events = partialEval(p, 'data.t.ok', { unknowns: ['input'], trace: true }).events!;
    const rule = events.find((e) => e.op === 'Enter' && e.node?.type === 'rule')!;
    const children = events.filter((e) => e.op === 'Enter' && e.node?.type === 'body' && e.parentId === rule.queryId);
    // not (1), every over two members (2), the comprehension (1)
    expect(children).toHaveLength(4);
    expect(new Set(children.map((e) => e.queryId)).size).toBe(4);
    // The negated expression shows as the negation's body; what was kept inside is saved there.
    const not = children[0]!;
    expect(not.node?.type === 'body' && not.node.node.length).toBe(1);
    expect(events.some((e) => e.op === 'Save' && e.queryId === not.queryId)).toBe(true);
  });
});
