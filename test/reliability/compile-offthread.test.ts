// Issue 10: a large policy write does not stall the server. `PUT /v1/policies` of a
// 10,000-rule chain is compiled by the evaluation workers one at a time before it
// commits (server/engine/policy-compile.ts), so with two workers a decision sent
// every 0.5 s keeps answering from the other one and `/health` (main thread) keeps
// answering at once. A candidate that does not compile is refused with OPA's reply
// and leaves the old module set active; concurrent writes of two modules both land.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeChain } from '../../bench/fixtures/scaling/make-policy.js';
import { errorBody, probeDuring, reportProbe, send, startServer, type RunningServer } from './helpers.js';

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({ args: ['--workers', '2'] });
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

const TEXT = { 'content-type': 'text/plain' };

/** Worst latency of `GET /health`, sent every 100 ms while `during` runs. */
async function healthDuring<T>(during: () => Promise<T>): Promise<{ result: T; worstMs: number; sent: number }> {
  let worst = 0;
  let sent = 0;
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const t = performance.now();
      const r = await send(srv, { method: 'GET', path: '/health' });
      expect(r.status).toBe(200);
      worst = Math.max(worst, performance.now() - t);
      sent++;
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  try {
    const result = await during();
    return { result, worstMs: Math.round(worst), sent };
  } finally {
    stop = true;
    await loop;
  }
}

describe('a candidate that does not compile', () => {
  it('gets the same reply as in-process compilation (--workers 0)', async () => {
    const local = await startServer({ args: ['--workers', '0'] });
    try {
      for (const s of [local, srv]) await send(s, { method: 'PUT', path: '/v1/policies/same', body: 'package same\n\nx := 1\n', headers: TEXT });
      const bodies = ['package same\n\nx := y\n', 'package same\n\nx := \n', 'package other\n\nx := 1\nx := 2\n', 'package same\n\nx := data.same.x\n', ''];
      for (const body of bodies) {
        const [a, b] = await Promise.all([local, srv].map((s) => send(s, { method: 'PUT', path: '/v1/policies/same', body, headers: TEXT })));
        expect(b!.status, body).toBe(a!.status);
        expect(b!.text, body).toBe(a!.text);
      }
    } finally {
      await local.close();
    }
  }, 60_000);

  it('gets OPA reply and leaves the old module set active', async () => {
    const ok = await send(srv, { method: 'PUT', path: '/v1/policies/a', body: 'package a\n\nx := 1\n', headers: TEXT });
    expect(ok.status).toBe(200);
    const bad = await send(srv, { method: 'PUT', path: '/v1/policies/a', body: 'package a\n\nx := y\n', headers: TEXT });
    expect(bad.status).toBe(400);
    const body = errorBody(bad);
    expect(body.code).toBe('invalid_parameter');
    expect(body.message).toBe('error(s) occurred while compiling module(s)');
    // An unsafe head variable is reported at the rule, as OPA's checkSafetyRuleHeads.
    expect(body.errors).toEqual([{ code: 'rego_unsafe_var_error', message: 'var y is unsafe', location: { file: 'a', row: 3, col: 1 } }]);
    const parse = await send(srv, { method: 'PUT', path: '/v1/policies/a', body: 'package a\n\nx := \n', headers: TEXT });
    expect(parse.status).toBe(400);
    expect((errorBody(parse).errors as { code: string }[])[0]!.code).toBe('rego_parse_error');
    expect((await send(srv, { method: 'GET', path: '/v1/data/a/x' })).json()).toEqual({ result: 1 });
    // Deleting a module others depend on: invalid_operation, nothing changes.
    expect((await send(srv, { method: 'PUT', path: '/v1/policies/a', body: 'package a\n\nx := 1\n\nf(v) := v\n', headers: TEXT })).status).toBe(200);
    expect((await send(srv, { method: 'PUT', path: '/v1/policies/b', body: 'package b\n\ny := data.a.f(1)\n', headers: TEXT })).status).toBe(200);
    const del = await send(srv, { method: 'DELETE', path: '/v1/policies/a' });
    expect(del.status).toBe(400);
    expect(errorBody(del).code).toBe('invalid_operation');
    expect((await send(srv, { method: 'GET', path: '/v1/data/b/y' })).json()).toEqual({ result: 1 });
  }, 60_000);
});

describe('concurrent policy writes', () => {
  it('are applied one after the other: every module lands', async () => {
    const puts = Array.from({ length: 6 }, (_, i) => send(srv, { method: 'PUT', path: `/v1/policies/c${i}`, body: `package c${i}\n\nv := ${i}\n`, headers: TEXT }));
    for (const r of await Promise.all(puts)) expect(r.status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await send(srv, { method: 'GET', path: `/v1/data/c${i}/v` })).json()).toEqual({ result: i });
    const list = (await send(srv, { method: 'GET', path: '/v1/policies' })).json() as { result: { id: string }[] };
    expect(list.result.map((p) => p.id)).toEqual(expect.arrayContaining(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']));
  }, 60_000);
});

describe('PUT of a 10,000-rule chain with two workers', () => {
  it('keeps decisions and /health answering while the workers compile it', async () => {
    const { result, worstMs, sent } = await healthDuring(() =>
      probeDuring(srv, () => send(srv, { method: 'PUT', path: '/v1/policies/chain?metrics', body: makeChain(10_000), headers: TEXT })),
    );
    const { result: put, probe } = result;
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    const metrics = (put.json() as { metrics: Record<string, number> }).metrics;
    expect(metrics.timer_rego_module_compile_ns).toBeGreaterThan(0);
    expect(metrics.timer_rego_module_parse_ns).toBeGreaterThan(0);
    reportProbe('PUT 10,000-rule chain, --workers 2', probe);
    console.log(`[reliability] PUT 10,000-rule chain, --workers 2: worst /health ${worstMs} ms over ${sent} requests, compile ${Math.round(metrics.timer_rego_module_compile_ns / 1e6)} ms in a worker`);
    expect(probe.failed).toBe(0);
    expect(probe.worstMs).toBeLessThan(2000);
    expect(worstMs).toBeLessThan(1000);
    const short = await send(srv, { method: 'GET', path: '/v1/data/chain/p9990' });
    expect(short.json()).toEqual({ result: 1 });
    // GET of the module parses it on the main thread on first use (a lazy record).
    const got = await send(srv, { method: 'GET', path: '/v1/policies/chain' });
    expect((got.json() as { result: { id: string; ast: { rules: unknown[] } } }).result.ast.rules).toHaveLength(10_001);
    expect(srv.alive()).toBe(true);
  }, 120_000);
});
