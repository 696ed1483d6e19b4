// Issue 10 item 5 through a real `regent run --server` process: deep policies and
// queries get a clean 4xx `{code, message}` reply with a non-empty `errors` list
// (located rego_parse_error), a 10,000-rule chain installs and its decision either
// answers or fails with a `{code, message}` error, and the process stays alive with
// a normal decision answering every 0.5 s throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeChain } from '../../bench/fixtures/scaling/make-policy.js';
import { errorBody, probeDuring, reportProbe, send, startServer, type RunningServer } from './helpers.js';

const ones = (n: number, op: string): string => Array.from({ length: n }, () => '1').join(op);

const DEEP_POLICIES: Record<string, string> = {
  'chained ==': `package deep\n\np if ${ones(3000, ' == ')}\n`,
  'chained +': `package deep\n\np := ${ones(3000, ' + ')}\n`,
  '10,000 .a refs': `package deep\n\np := input${'.a'.repeat(10_000)}\n`,
  '10,000 [0] refs': `package deep\n\np := input${'[0]'.repeat(10_000)}\n`,
};

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

interface ErrorItem {
  code: string;
  message: string;
  location?: { file: string; row: number; col: number };
}

function expectLocatedErrors(r: { status: number; text: string }, status: number): ErrorItem[] {
  expect(r.status, r.text.slice(0, 300)).toBe(status);
  const body = errorBody(r);
  expect(body.code).toBe('invalid_parameter');
  const errors = body.errors as ErrorItem[];
  expect(Array.isArray(errors) && errors.length > 0, r.text.slice(0, 300)).toBe(true);
  expect(errors[0]!.code).toBe('rego_parse_error');
  expect(errors[0]!.message).toMatch(/max (expression|nesting) depth \d+ exceeded/);
  expect(errors[0]!.location?.row).toBeGreaterThan(0);
  return errors;
}

describe('deep policies: PUT /v1/policies', () => {
  for (const [name, text] of Object.entries(DEEP_POLICIES)) {
    it(name, async () => {
      const { result, probe } = await probeDuring(srv, () =>
        send(srv, { method: 'PUT', path: '/v1/policies/deep', body: text, headers: { 'content-type': 'text/plain' } }),
      );
      const errors = expectLocatedErrors(result, 400);
      expect(errors[0]!.location).toMatchObject({ file: 'deep', row: 3 });
      expect(srv.alive()).toBe(true);
      reportProbe(`PUT deep policy (${name})`, probe);
      expect(probe.failed).toBe(0);
      expect(probe.worstMs).toBeLessThan(2000);
    }, 60_000);
  }
});

describe('deep queries: POST /v1/query', () => {
  const queries: Record<string, string> = {
    'chained ==': ones(3000, ' == '),
    'chained +': `x := ${ones(3000, ' + ')}`,
    '10,000 .a refs': `x := input${'.a'.repeat(10_000)}`,
    '10,000 [0] refs': `x := input${'[0]'.repeat(10_000)}`,
  };
  for (const [name, query] of Object.entries(queries)) {
    it(name, async () => {
      const r = await send(srv, { method: 'POST', path: '/v1/query', body: JSON.stringify({ query }), headers: { 'content-type': 'application/json' } });
      expectLocatedErrors(r, 400);
      expect(srv.alive()).toBe(true);
    }, 60_000);
  }
});

describe('a 10,000-rule chain', () => {
  it('installs, and its decision answers or fails with {code, message}', async () => {
    const { result: put, probe } = await probeDuring(srv, () =>
      send(srv, { method: 'PUT', path: '/v1/policies/chain', body: makeChain(10_000), headers: { 'content-type': 'text/plain' } }),
    );
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    reportProbe('PUT 10,000-rule chain', probe);
    expect(probe.failed).toBe(0);
    // A valid policy this size is compiled off the main thread, by the one worker this
    // 2-core default runs, in steps (compiler/compile-steps.ts) with decisions answered
    // between them (compile-one-worker.test.ts; with two workers, compile-offthread.test.ts).
    expect(probe.worstMs).toBeLessThan(2000);

    const decision = await send(srv, { method: 'POST', path: '/v1/data/chain/p0', body: '{}', headers: { 'content-type': 'application/json' } });
    if (decision.status === 200) expect(decision.json()).toEqual({ result: 1 });
    else {
      expect(decision.status).toBeGreaterThanOrEqual(400);
      expect(errorBody(decision).code).not.toBe('');
    }
    const query = await send(srv, { method: 'POST', path: '/v1/query', body: JSON.stringify({ query: 'x := data.chain.p0' }), headers: { 'content-type': 'application/json' } });
    if (query.status !== 200) expect(errorBody(query).message).not.toBe('');
    // Nearer the end of the chain, the decision is a plain 200.
    const short = await send(srv, { method: 'GET', path: '/v1/data/chain/p9990' });
    expect(short.json()).toEqual({ result: 1 });
    expect(srv.alive()).toBe(true);
  }, 120_000);
});
