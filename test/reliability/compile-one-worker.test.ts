// Issue 10: with ONE evaluation worker (the default on 2 cores), a 10,000-rule policy
// PUT does not hold decisions while that worker compiles the candidate. The worker
// compiles in steps (compiler/compile-steps.ts: each module's parse, each pass,
// code generation) and answers decisions on the current policy between them, and
// the pool sends tasks to a compiling worker when it is the only one. A decision
// is sent every 200 ms during the PUT; the worst latency is printed and must stay
// under 2 s. The decisions answered meanwhile see the old policy, the ones after
// the reply the new one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeChain } from '../../bench/fixtures/scaling/make-policy.js';
import { probeDuring, reportProbe, send, startServer, type RunningServer } from './helpers.js';

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({ args: ['--workers', '1'] });
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

const TEXT = { 'content-type': 'text/plain' };

describe('PUT of a 10,000-rule chain with one worker', () => {
  it('keeps decisions answering while the only worker compiles it', async () => {
    const old = await send(srv, { method: 'PUT', path: '/v1/policies/chain', body: 'package chain\n\np9990 := "old"\n', headers: TEXT });
    expect(old.status).toBe(200);
    // Decisions on the policy being replaced, sent during the PUT: they answer from the old one.
    const during: Promise<string>[] = [];
    const { result: put, probe } = await probeDuring(
      srv,
      async () => {
        const pending = send(srv, { method: 'PUT', path: '/v1/policies/chain?metrics', body: makeChain(10_000), headers: TEXT });
        await new Promise((res) => setTimeout(res, 150));
        during.push(send(srv, { method: 'GET', path: '/v1/data/chain/p9990' }).then((r) => r.text));
        return pending;
      },
      { intervalMs: 200 },
    );
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    const metrics = (put.json() as { metrics: Record<string, number> }).metrics;
    reportProbe('PUT 10,000-rule chain, --workers 1', probe);
    console.log(`[reliability] PUT 10,000-rule chain, --workers 1: compile ${Math.round(metrics.timer_rego_module_compile_ns! / 1e6)} ms of steps in the worker, ${probe.sent} probes`);
    expect(probe.failed).toBe(0);
    expect(probe.answered).toBe(probe.sent);
    expect(probe.sent).toBeGreaterThanOrEqual(5);
    expect(probe.worstMs).toBeLessThan(2000);
    expect(await Promise.all(during)).toEqual(['{"result":"old"}\n']);
    expect((await send(srv, { method: 'GET', path: '/v1/data/chain/p9990' })).json()).toEqual({ result: 1 });
    expect(srv.alive()).toBe(true);
  }, 120_000);
});
