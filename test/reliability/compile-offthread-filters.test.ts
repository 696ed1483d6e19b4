// Issue 11: the Compile APIs off the main thread. Data filters (`/v1/compile/{path}`)
// and partial evaluation (`POST /v1/compile`) run as tasks of the evaluation worker
// pool (server/engine/filter-task.ts, mode 'filter'; mode 'partial'), so with two
// workers a slow partial evaluation (a 36-million-step known comprehension) does not
// stall `/health` or normal decisions, probed every 0.5 s. Both honour
// `--eval-timeout` (OPA's cancelled-query reply, `{code, message, errors}`), with
// workers and in-process alike, and give byte-identical replies with `--workers 0`
// and `--workers 2`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody, probeDuring, reportProbe, send, startServer, type RawReply, type RunningServer } from './helpers.js';

const PG = 'application/vnd.opa.sql.postgresql+json';
const MULTI = 'application/vnd.opa.multitarget+json';
const PRISMA = 'application/vnd.opa.ucast.prisma+json';

/** `n` steps of partial evaluation on known values before the residual (n = 6000 → 36 M). */
function slowPolicy(n: number): string {
  return `package slow

# METADATA
# scope: document
# compile:
#   unknowns: [input.fruits]
include if {
	n := count([1 | some i in numbers.range(1, ${n}); some j in numbers.range(1, ${n}); i == j])
	input.fruits.price > n
}
`;
}

const SHOP = `package shop

# METADATA
# scope: document
# compile:
#   unknowns: [input.fruits]
#   mask_rule: data.shop.mask
include if input.fruits.name == input.favorite

include if {
	input.fruits.price < 10
	input.fruits.colour in {"red", "green"}
}

mask := {"fruits": {"owner": {"replace": {"value": "***"}}}} if not input.admin

bad if input.fruits.name == concat("", [input.fruits.a, "x"])
`;

const FILES = { 'slow.rego': slowPolicy(6000), 'shop.rego': SHOP };

function filter(srv: RunningServer, path: string, accept: string, body: unknown): Promise<RawReply> {
  return send(srv, { method: 'POST', path, headers: { accept, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function compile(srv: RunningServer, body: unknown, query = ''): Promise<RawReply> {
  return send(srv, { method: 'POST', path: `/v1/compile${query}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

let pooled: RunningServer;
let local: RunningServer;
beforeAll(async () => {
  [pooled, local] = await Promise.all([
    startServer({ files: FILES, args: ['--workers', '2', '--eval-timeout', '60s'] }),
    startServer({ files: FILES, args: ['--workers', '0', '--eval-timeout', '60s'] }),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all([pooled?.close(), local?.close()]);
});

describe('same replies with --workers 0 and --workers 2', () => {
  it('data filters: targets, masks, pretty, errors, unconditional answers', async () => {
    const cases: [string, string, unknown][] = [
      ['/v1/compile/shop/include', PG, { input: { favorite: 'apple' } }],
      ['/v1/compile/shop/include?pretty', PRISMA, { input: { favorite: 'apple', admin: true } }],
      ['/v1/compile/shop/include', MULTI, { input: { favorite: 'pear' }, options: { targetDialects: ['ucast+linq', 'sql+sqlite', 'sql+mysql'] } }],
      ['/v1/compile/shop/include', PG, { input: { favorite: 'apple' }, options: { targetSQLTableMappings: { postgresql: { fruits: { $table: 'f', name: 'n' } } } } }],
      ['/v1/compile/shop/include', PG, { input: { fruits: { price: 1, colour: 'red' } }, unknowns: ['input.other'] }],
      ['/v1/compile/shop/missing', PG, {}],
      ['/v1/compile/shop/bad', PG, { unknowns: ['input.fruits'] }],
      ['/v1/compile/shop/include', MULTI, { options: { targetDialects: ['sql+oracle'] } }],
      ['/v1/compile/shop/include', PG, { input: { favourite: 'apple' } }],
    ];
    const statuses: number[] = [];
    for (const [path, accept, body] of cases) {
      const [a, b] = await Promise.all([local, pooled].map((s) => filter(s, path, accept, body)));
      const label = `${path} ${accept} ${JSON.stringify(body)}`;
      statuses.push(a!.status);
      expect(b!.status, label).toBe(a!.status);
      expect(b!.headers['content-type'], label).toBe(a!.headers['content-type']);
      expect(b!.text.replaceAll(pooled.dir, '<dir>'), label).toBe(a!.text.replaceAll(local.dir, '<dir>')); // error locations name each server's policy file
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 400, 500, 200]);
  }, 60_000);

  it('POST /v1/compile: queries, support, explain, errors', async () => {
    const cases: [unknown, string][] = [
      [{ query: 'data.shop.include', unknowns: ['input.fruits'], input: { favorite: 'apple' } }, ''],
      [{ query: 'data.shop.include', unknowns: ['input.fruits'], options: { disableInlining: ['data.shop.include'] } }, '?pretty'],
      [{ query: 'input.x > 1', unknowns: ['input'] }, '?explain=full'],
      [{ query: 'data.shop.include', unknowns: ['input.'] }, ''],
      [{ query: 'x := ', unknowns: ['input'] }, ''],
    ];
    const statuses: number[] = [];
    for (const [body, query] of cases) {
      const [a, b] = await Promise.all([local, pooled].map((s) => compile(s, body, query)));
      statuses.push(a!.status);
      expect(b!.status, JSON.stringify(body)).toBe(a!.status);
      expect(b!.text.replaceAll(pooled.dir, '<dir>'), JSON.stringify(body)).toBe(a!.text.replaceAll(local.dir, '<dir>'));
    }
    expect(statuses).toEqual([200, 200, 200, 400, 400]);
  }, 60_000);

  it('metrics and instrument report the same timers', async () => {
    for (const q of ['?metrics', '?instrument']) {
      const [a, b] = await Promise.all([local, pooled].map((s) => filter(s, `/v1/compile/shop/include${q}`, PG, { input: { favorite: 'fig' }, unknowns: ['input.fruits'] })));
      // Which worker answers decides whether its caches are warm: the cache-hit counter and
      // the planning stage timers (only when the query is planned) may differ.
      const keys = (r: RawReply) => Object.keys((r.json() as { metrics: Record<string, number> }).metrics).filter((k) => k !== 'counter_compile_prepared_cache_hit' && !k.startsWith('timer_query_compile_stage_'));
      expect(keys(b!), q).toEqual(keys(a!));
      expect(keys(a!), q).toContain('timer_rego_partial_eval_ns');
    }
  }, 60_000);

  it('the prepared-filter cache works per worker (a repeated request hits it)', async () => {
    let hits = 0;
    for (let i = 0; i < 6; i++) {
      const r = await filter(pooled, '/v1/compile/shop/include?metrics', PG, { input: { favorite: 'kiwi' } });
      expect(r.status).toBe(200);
      if ((r.json() as { metrics: Record<string, number> }).metrics.counter_compile_prepared_cache_hit === 1) hits++;
    }
    expect(hits).toBeGreaterThanOrEqual(4); // at most one miss per worker
  }, 60_000);
});

/** Worst latency of `GET /health`, sent every 500 ms while `during` runs. */
async function healthDuring<T>(srv: RunningServer, during: () => Promise<T>): Promise<{ result: T; worstMs: number; sent: number }> {
  let worst = 0;
  let sent = 0;
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const r = await send(srv, { method: 'GET', path: '/health' });
      expect(r.status).toBe(200);
      worst = Math.max(worst, r.ms);
      sent++;
      await new Promise((res) => setTimeout(res, 500));
    }
  })();
  try {
    const result = await during();
    stop = true;
    await loop; // the last /health may still be waiting
    return { result, worstMs: Math.round(worst), sent };
  } finally {
    stop = true;
    await loop;
  }
}

describe('a slow partial evaluation does not stall the server (--workers 2)', () => {
  it('data filter: /health and decisions keep answering', async () => {
    const { result, worstMs, sent } = await healthDuring(pooled, () => probeDuring(pooled, () => filter(pooled, '/v1/compile/slow/include', PG, {}), { minDurationMs: 1500 }));
    const { result: reply, probe } = result;
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json()).toEqual({ result: { query: "WHERE fruits.price > E'6000'" } });
    reportProbe(`slow data filter (${Math.round(reply.ms)} ms)`, probe);
    console.log(`[reliability] slow data filter: worst /health ${worstMs} ms over ${sent} requests`);
    expect(probe.answered).toBe(probe.sent);
    expect(probe.worstMs).toBeLessThan(2000);
    expect(worstMs).toBeLessThan(2000);
  }, 90_000);

  it('POST /v1/compile: /health and decisions keep answering', async () => {
    const body = { query: 'data.slow.include', unknowns: ['input.fruits'] };
    const { result, worstMs, sent } = await healthDuring(pooled, () => probeDuring(pooled, () => compile(pooled, body), { minDurationMs: 1500 }));
    const { result: reply, probe } = result;
    expect(reply.status, reply.text).toBe(200);
    reportProbe(`slow partial evaluation (${Math.round(reply.ms)} ms)`, probe);
    console.log(`[reliability] slow partial evaluation: worst /health ${worstMs} ms over ${sent} requests`);
    expect(probe.answered).toBe(probe.sent);
    expect(probe.worstMs).toBeLessThan(2000);
    expect(worstMs).toBeLessThan(2000);
  }, 90_000);
});

describe('for contrast: --workers 0 evaluates on the main thread', () => {
  it('a slow data filter holds /health up until it is done', async () => {
    const { result, worstMs } = await healthDuring(local, async () => {
      await new Promise((res) => setTimeout(res, 200)); // the first /health is answered before the filter starts
      return filter(local, '/v1/compile/slow/include', PG, {});
    });
    expect(result.status).toBe(200);
    console.log(`[reliability] slow data filter with --workers 0 (${Math.round(result.ms)} ms): worst /health ${worstMs} ms`);
    expect(worstMs).toBeGreaterThan(1000);
  }, 90_000);
});

describe('--eval-timeout applies to compile requests', () => {
  it('answers a cancelled partial evaluation as a cancelled query, with workers and in-process', async () => {
    for (const workers of ['2', '0']) {
      const srv = await startServer({ files: { 'slow.rego': slowPolicy(20000) }, args: ['--workers', workers, '--eval-timeout', '1s'] });
      try {
        for (const reply of [await filter(srv, '/v1/compile/slow/include', PG, {}), await compile(srv, { query: 'data.slow.include', unknowns: ['input.fruits'] })]) {
          expect(reply.status, `workers ${workers}: ${reply.text}`).toBe(500);
          const err = errorBody(reply);
          expect(err.code).toBe('internal_error');
          expect(err.message).toBe('error(s) occurred while evaluating query');
          expect(err.errors).toEqual([expect.objectContaining({ code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' })]);
          expect(reply.ms, `workers ${workers}`).toBeLessThan(5000);
        }
        const ok = await send(srv, { method: 'GET', path: '/health' });
        expect(ok.status).toBe(200);
      } finally {
        await srv.close();
      }
    }
  }, 120_000);

  it('also stops a slow mask rule, with workers and in-process', async () => {
    const masked = `package masked

# METADATA
# scope: document
# compile:
#   unknowns: [input.fruits]
#   mask_rule: masks
include if input.fruits.price > 1

masks := {"fruits": {"price": {"replace": {"value": n}}}} if {
	n := count([1 | some i in numbers.range(1, 20000); some j in numbers.range(1, 20000); i == j])
}
`;
    for (const workers of ['2', '0']) {
      const srv = await startServer({ files: { 'masked.rego': masked }, args: ['--workers', workers, '--eval-timeout', '1s'] });
      try {
        const reply = await filter(srv, '/v1/compile/masked/include', PG, {});
        expect(reply.status, `workers ${workers}: ${reply.text}`).toBe(500);
        expect(errorBody(reply).errors).toEqual([expect.objectContaining({ code: 'eval_cancel_error' })]);
        expect(reply.ms, `workers ${workers}`).toBeLessThan(5000);
      } finally {
        await srv.close();
      }
    }
  }, 120_000);
});
