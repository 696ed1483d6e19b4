// POST /v1/compile (classic partial evaluation) against a listening server: the
// request fields, the result rules of spec §4.5 and notes §1, the doc examples
// byte for byte, query parameters, and every error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, gzip, putPolicy, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;

const EXAMPLE = `package example

allow if data.break_glass = true

allow if input.subject.clearance_level >= data.reports[_].clearance_level

deny if not allow

default dflt := false

dflt if input.x > 1

t if time.now_ns() > input.t
`;

beforeAll(async () => {
  server = await startTestServer();
  expect((await putPolicy(server, 'example.rego', EXAMPLE)).status).toBe(200);
});
afterAll(() => server.close());

const post = (body: unknown, qs = '', headers: Record<string, string> = {}) => call(server, 'POST', '/v1/compile' + qs, body, { 'content-type': 'application/json', ...headers });

const GTE = {
  index: 0,
  terms: [
    { type: 'ref', value: [{ type: 'var', value: 'gte' }] },
    { type: 'number', value: 4 },
    { type: 'ref', value: [{ type: 'var', value: 'data' }, { type: 'string', value: 'reports' }, { type: 'var', value: '$02' }, { type: 'string', value: 'clearance_level' }] },
  ],
};

describe('POST /v1/compile', () => {
  it('partially evaluates the doc example (unknown data.reports)', async () => {
    const r = await post({ query: 'data.example.allow == true', input: { subject: { clearance_level: 4 } }, options: { disableInlining: [] }, unknowns: ['data.reports'] });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.json()).toEqual({ result: { queries: [[GTE]] } });
  });

  it('gives an empty body for the always-true alternative', async () => {
    await call(server, 'PUT', '/v1/data/break_glass', true);
    try {
      const r = await post({ query: 'data.example.allow == true', input: { subject: { clearance_level: 4 } }, unknowns: ['data.reports'] });
      expect(r.json()).toEqual({ result: { queries: [[], [GTE]] } });
    } finally {
      await call(server, 'DELETE', '/v1/data/break_glass');
    }
  });

  it('follows the result rules of the summary table', async () => {
    const gt = [{ index: 0, terms: [{ type: 'ref', value: [{ type: 'var', value: 'gt' }] }, { type: 'ref', value: [{ type: 'var', value: 'input' }, { type: 'string', value: 'x' }] }, { type: 'number', value: 0 }] }];
    expect((await post({ query: 'input.x > 0', unknowns: ['input'] })).json()).toEqual({ result: { queries: [gt] } });
    expect((await post({ query: 'input.x > 0' })).json()).toEqual({ result: { queries: [gt] } });
    expect((await post({ query: 'input.x > 0', unknowns: [] })).json()).toEqual({ result: {} });
    expect((await post({ query: '1 > 0', unknowns: ['input'] })).json()).toEqual({ result: { queries: [[]] } });
    expect((await post({ query: '1 < 0' })).json()).toEqual({ result: {} });
  });

  it('writes support modules for rules it cannot inline, and for disableInlining', async () => {
    const r = await post({ query: 'data.example.dflt == true' });
    const body = r.json() as { result: { queries: unknown[]; support: { package: unknown; rules: unknown[] }[] } };
    expect(body.result.queries).toEqual([
      [{ index: 0, terms: [{ type: 'ref', value: [{ type: 'var', value: 'equal' }] }, { type: 'ref', value: [{ type: 'var', value: 'data' }, { type: 'string', value: 'partial' }, { type: 'string', value: 'example' }, { type: 'string', value: 'dflt' }] }, { type: 'boolean', value: true }] }],
    ]);
    expect(body.result.support[0]!.package).toEqual({ path: [{ type: 'var', value: 'data' }, { type: 'string', value: 'partial' }, { type: 'string', value: 'example' }] });
    expect(body.result.support[0]!.rules).toHaveLength(2);
    const di = (await post({ query: 'data.example.allow', options: { disableInlining: ['data.example.allow'] } })).json() as { result: { queries: unknown[]; support: unknown[] } };
    expect(di.result.queries).toEqual([[{ index: 0, terms: { type: 'ref', value: [{ type: 'var', value: 'data' }, { type: 'string', value: 'partial' }, { type: 'string', value: 'example' }, { type: 'string', value: 'allow' }] } }]]);
    expect(di.result.support).toHaveLength(1);
  });

  it('writes a negation over several bodies as a data.partial.__not…__ support rule', async () => {
    const r = (await post({ query: 'data.example.deny', input: { subject: { clearance_level: 4 } }, unknowns: ['data.reports', 'data.break_glass'] })).json() as { result: { queries: { terms: unknown; negated?: boolean }[][]; support: { package: { path: { value: string }[] } }[] } };
    expect(r.result.queries).toHaveLength(1);
    expect(r.result.queries[0]![0]!.negated).toBe(true);
    expect(JSON.stringify(r.result.queries[0]![0]!.terms)).toMatch(/"partial"\},\{"type":"string","value":"__not\d+_\d+_\d+__"/);
    expect(r.result.support[0]!.package.path.map((t) => t.value)).toEqual(['data', 'partial']);
  });

  it('keeps non-deterministic builtins unless nondeterministicBuiltins is true', async () => {
    const kept = JSON.stringify((await post({ query: 'data.example.t', unknowns: ['input.t'] })).json());
    expect(kept).toContain('"now_ns"');
    const evaluated = JSON.stringify((await post({ query: 'data.example.t', unknowns: ['input.t'], options: { nondeterministicBuiltins: true } })).json());
    expect(evaluated).not.toContain('now_ns');
    expect(evaluated).toContain('"gt"');
  });

  it('matches body keys without regard to case and accepts gzip', async () => {
    expect((await post({ Query: '1 > 0', UNKNOWNS: [] })).json()).toEqual({ result: { queries: [[]] } });
    const r = await call(server, 'POST', '/v1/compile', gzip(JSON.stringify({ query: '1 < 0' })), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(r.json()).toEqual({ result: {} });
  });

  it('adds metrics, instrument timers, an explanation and pretty output on request', async () => {
    const m = (await post({ query: 'input.x > 0' }, '?metrics')).json() as { metrics: Record<string, number> };
    expect(Object.keys(m.metrics)).toEqual(expect.arrayContaining(['timer_rego_partial_eval_ns', 'timer_rego_query_parse_ns', 'timer_server_handler_ns']));
    expect(Object.keys(((await post({ query: 'input.x > 0' }, '?instrument')).json() as { metrics: object }).metrics)).toContain('timer_rego_partial_eval_ns');
    const p = await post({ query: '1 > 0' }, '?pretty=true');
    expect(p.text).toBe('{\n  "result": {\n    "queries": [\n      []\n    ]\n  }\n}\n');
  });

  it('explains the partial evaluation: full, notes, fails, debug and pretty', async () => {
    type Ev = { op: string; query_id: number; parent_id: number; type: string; node: unknown; message?: string };
    const body = { query: 'data.example.allow == true', input: { subject: { clearance_level: 4 } }, unknowns: ['data.reports'] };
    const full = (await post(body, '?explain=full')).json() as { result: unknown; explanation: Ev[] };
    expect(full.result).toEqual({ queries: [[GTE]] }); // the trace does not change the result
    const ops = full.explanation.map((e) => e.op);
    expect(ops[0]).toBe('enter');
    expect(full.explanation[0]).toMatchObject({ query_id: 0, parent_id: 0, type: 'body' });
    expect(ops).toEqual(expect.arrayContaining(['eval', 'save', 'exit', 'redo']));
    // The inlined rule body is a child query of the query, entered with its rule node.
    const rule = full.explanation.find((e) => e.op === 'enter' && e.type === 'rule')!;
    expect(rule.parent_id).toBe(0);
    expect(rule.query_id).toBeGreaterThan(0);
    // What partial evaluation kept: the residual comparison, as a Save event.
    const saves = full.explanation.filter((e) => e.op === 'save').map((e) => JSON.stringify(e.node));
    expect(saves.some((n) => n.includes('"gte"'))).toBe(true); // 4 >= $t.clearance_level
    expect(saves.some((n) => n.includes('"reports"'))).toBe(true); // $t = data.reports[$k]
    expect((await post(body, '?explain=debug')).json()).toHaveProperty('explanation', full.explanation);

    const notes = (await post({ query: 'trace("checked"); input.x > 0' }, '?explain=notes')).json() as { explanation: Ev[] };
    expect(notes.explanation.map((e) => e.op)).toEqual(['enter', 'note']);
    expect(notes.explanation[1]!.message).toBe('checked');
    expect((await post({ query: 'input.x > 0' }, '?explain=notes')).json()).toHaveProperty('explanation', []);

    const fails = (await post({ query: 'input.x > 0; 1 > 2' }, '?explain=fails')).json() as { result: unknown; explanation: Ev[] };
    expect(fails.result).toEqual({});
    expect(fails.explanation.at(-1)).toMatchObject({ op: 'fail', type: 'expr' });

    const pretty = (await post(body, '?explain=full&pretty=true')).json() as { explanation: string[] };
    expect(pretty.explanation[0]).toBe('Enter data.example.allow == true');
    expect(pretty.explanation.some((l) => /^\| \| Save .*>= /.test(l))).toBe(true);
    // Result, then explanation, then metrics (OPA's CompileResponseV1 field order).
    const both = await post({ query: '1 > 0' }, '?explain=full&metrics');
    expect(Object.keys(both.json() as object)).toEqual(['result', 'explanation', 'metrics']);
  });

  it('adds the query compile stage timers with instrument when the query is planned', async () => {
    const first = (await post({ query: 'input.instrumented > 1' }, '?instrument')).json() as { metrics: Record<string, number> };
    expect(Object.keys(first.metrics)).toEqual(expect.arrayContaining(['timer_query_compile_stage_parse_ns', 'timer_query_compile_stage_resolve_refs_ns', 'timer_query_compile_stage_plan_ns', 'timer_query_compile_stage_check_types_ns', 'timer_rego_partial_eval_ns']));
    // Planned once: the second request is served from the prepared-query cache.
    const second = (await post({ query: 'input.instrumented > 1' }, '?instrument')).json() as { metrics: Record<string, number> };
    expect(second.metrics.counter_server_query_cache_hit).toBe(1);
    expect(Object.keys(second.metrics).some((k) => k.startsWith('timer_query_compile_stage_'))).toBe(false);
  });

  it('answers request errors with OPA codes and messages', async () => {
    const missing = await post({ input: {} });
    expect(missing.status).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'invalid_parameter', message: "missing required 'query' value" });
    const parse = await post({ query: 'x :=' });
    expect(parse.status).toBe(400);
    expect(parse.json()).toMatchObject({ code: 'invalid_parameter', message: 'error(s) occurred while parsing query', errors: [{ code: 'rego_parse_error' }] });
    const unsafe = await post({ query: 'x > y' });
    expect(unsafe.status).toBe(400);
    expect(unsafe.json()).toMatchObject({ code: 'invalid_parameter', message: 'error(s) occurred while compiling module(s)', errors: [{ code: 'rego_unsafe_var_error', message: 'var x is unsafe' }, { code: 'rego_unsafe_var_error', message: 'var y is unsafe' }] }); // every unsafe var, as OPA
    const decode = await call(server, 'POST', '/v1/compile', '{"query": 1}', { 'content-type': 'application/json' });
    expect(decode.status).toBe(400);
    expect((decode.json() as { message: string }).message).toMatch(/^error\(s\) occurred while decoding request: json: cannot unmarshal number into Go struct field CompileRequestV1.query of type string/);
    const bad = await call(server, 'POST', '/v1/compile', '{"query": ', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect((bad.json() as { message: string }).message).toMatch(/^error\(s\) occurred while decoding request/);
    const unknown = await post({ query: 'input.x > 0', unknowns: ['foo.bar'] });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'invalid_parameter', message: 'error(s) occurred while parsing unknowns' });
    const di = await post({ query: 'input.x > 0', options: { disableInlining: ['not a ref'] } });
    expect(di.status).toBe(400);
    expect(di.json()).toMatchObject({ code: 'invalid_parameter', message: 'error(s) occurred while parsing disableInlining' });
    expect((await call(server, 'GET', '/v1/compile')).status).toBe(405);
  });

  it('reports evaluation errors as 500 internal_error', async () => {
    const conflict = await putPolicy(server, 'conflict.rego', 'package c\n\np := 1\n\np := 2 if true\n');
    expect(conflict.status).toBe(200);
    const c = await post({ query: 'data.c.p == 1', unknowns: [] });
    expect(c.status).toBe(500);
    expect(c.json()).toMatchObject({ code: 'internal_error', errors: [{ code: 'eval_conflict_error' }] });
  });
});

describe('POST /v1/compile in a worker thread', () => {
  let pooled: TestServer;
  beforeAll(async () => {
    pooled = await startTestServer({ workers: 1, evalTimeoutMs: 2000 });
    expect((await putPolicy(pooled, 'example.rego', EXAMPLE)).status).toBe(200);
    await call(pooled, 'PUT', '/v1/data/limits', { max: 3 });
  });
  afterAll(() => pooled.close());

  it('evaluates through the worker pool with the store data, and reports errors as in-process', async () => {
    const r = await call(pooled, 'POST', '/v1/compile', { query: 'data.example.allow == true', input: { subject: { clearance_level: 4 } }, unknowns: ['data.reports'] }, { 'content-type': 'application/json' });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ result: { queries: [[GTE]] } });
    const traced = await call(pooled, 'POST', '/v1/compile?explain=full', { query: 'data.example.allow == true', input: { subject: { clearance_level: 4 } }, unknowns: ['data.reports'] }, { 'content-type': 'application/json' });
    expect((traced.json() as { explanation: { op: string }[] }).explanation.map((e) => e.op)).toEqual(expect.arrayContaining(['enter', 'eval', 'save', 'exit']));
    const d = await call(pooled, 'POST', '/v1/compile', { query: 'input.n > data.limits.max' }, { 'content-type': 'application/json' });
    expect(JSON.stringify(d.json())).toContain('{"type":"number","value":3}');
    const bad = await call(pooled, 'POST', '/v1/compile', { query: 'input.x > 0', unknowns: ['nope'] }, { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ message: 'error(s) occurred while parsing unknowns' });
    const slow = await call(pooled, 'POST', '/v1/compile', { query: 'some a in numbers.range(1, 400); some b in numbers.range(1, 400); some c in numbers.range(1, 400); a + b + c == input.n' }, { 'content-type': 'application/json' });
    expect(slow.status).toBe(500);
    expect(JSON.stringify(slow.json())).toContain('eval_cancel_error');
  });
});
