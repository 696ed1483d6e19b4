// Decision logs of the data-filter API (POST/GET /v1/compile/{path}), uploaded to a
// local HTTP collector as the decision_logs plugin does: one event per successful
// filter request with OPA's v1CompileFilters fields — path (the URL path), input,
// result (the reply's `result`), metrics, and custom {mask_rule, options, type:
// "open-policy-agent/compile", unknowns} — and none for failed requests. Classic
// partial evaluation (POST /v1/compile) is not logged, as in OPA's v1CompilePost.
// Also here, on the same real server: `instrument` adds the compile stage timers of
// the partial-evaluation query when it is planned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { fromJS } from '../../runtime/index.js';
import { buildServer } from '../../server/index.js';
import { loadConfig } from '../../server/config/config.js';
import { startPlugins, type RunningPlugins } from '../../server/plugins/index.js';
import { startServer, type TestServer as Collector } from '../plugins/helpers.js';
import { benchFiltersPolicy, benchRoles } from './helpers.js';

const PG = 'application/vnd.opa.sql.postgresql+json';
const MULTI = 'application/vnd.opa.multitarget+json';

const SHOP = `package shop

# METADATA
# scope: rule
# compile:
#   unknowns: [input.fruits]
#   mask_rule: masks
include if input.fruits.price < input.budget

masks := {"fruits": {"supplier": {"replace": {"value": "***"}}}}

never if {
	input.fruits.price < 0
	input.budget > 100
}
`;

type Event = Record<string, unknown> & { custom?: Record<string, unknown> };

let collector: Collector;
let app: Awaited<ReturnType<typeof buildServer>>;
let plugins: RunningPlugins;
const events: Event[] = [];

beforeAll(async () => {
  collector = await startServer((req, body, res) => {
    if (req.url === '/logs') events.push(...(JSON.parse(gunzipSync(body).toString('utf8')) as Event[]));
    res.statusCode = 204;
    res.end();
  });
  const config = loadConfig({
    text: JSON.stringify({ services: { collector: { url: collector.url } }, decision_logs: { service: 'collector', reporting: { min_delay_seconds: 3600, max_delay_seconds: 7200 } } }),
    version: 'test',
  });
  app = await buildServer({ config, workers: 0 });
  plugins = await startPlugins(config.document, app.regent.host);
  app.regent.attachPlugins(plugins);
  await app.regent.engine.putPolicy('shop.rego', SHOP);
  await app.regent.engine.putPolicy('bench_filters.rego', benchFiltersPolicy());
  await app.regent.engine.writeData([['roles']], (txn) => txn.write('add', ['roles'], fromJS(benchRoles() as never)));
});

afterAll(async () => {
  await plugins?.stop();
  await app?.close();
  await collector?.close();
});

async function filter(path: string, accept: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const r = await app.inject({ method: 'POST', url: `/v1/compile/${path}`, headers: { accept, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  return { status: r.statusCode, json: JSON.parse(r.body) as unknown };
}

/** The events uploaded since the last call. */
async function uploaded(): Promise<Event[]> {
  expect(await plugins.flushDecisionLogs()).toBe(true);
  return events.splice(0);
}

describe('decision logs of /v1/compile/{path}', () => {
  it('logs a filter request with OPA fields: path, input, result, metrics, custom', async () => {
    const input = { budget: 10 };
    const r = await filter('shop/include', PG, { input });
    expect(r.status).toBe(200);
    const [e, ...more] = await uploaded();
    expect(more).toEqual([]);
    expect(e!.decision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(e!.path).toBe('shop/include');
    expect(e!.input).toEqual(input);
    expect(e!.result).toEqual((r.json as { result: unknown }).result);
    expect(e!.result).toEqual({ query: "WHERE fruits.price < E'10'", masks: { fruits: { supplier: { replace: { value: '***' } } } } });
    expect(e!.custom).toEqual({ mask_rule: 'data.shop.masks', options: {}, type: 'open-policy-agent/compile', unknowns: ['input.fruits'] });
    expect(Object.keys(e!.metrics as object)).toEqual(expect.arrayContaining(['timer_rego_partial_eval_ns', 'timer_server_handler_ns']));
    expect(e!.query).toBeUndefined();
    // Field order: OPA's EventV1 struct order, custom last.
    expect(Object.keys(e!)).toEqual(['labels', 'decision_id', 'path', 'input', 'result', 'requested_by', 'timestamp', 'metrics', 'custom']);
  });

  it('logs the request options as sent and the unknowns the request named', async () => {
    const options = { targetDialects: ['sql+mysql', 'ucast+prisma'], targetSQLTableMappings: { mysql: { fruits: { $table: 'fruit' } } }, disableInlining: [] as string[], maskRule: 'data.shop.masks' };
    const r = await filter('filters/include', MULTI, { input: { user: 'caesar', tenant: { id: 2, name: 'acmecorp' } }, unknowns: ['input.tickets', 'input.users'], options });
    expect(r.status).toBe(200);
    const [e] = await uploaded();
    expect(e!.path).toBe('filters/include');
    expect(e!.result).toEqual((r.json as { result: unknown }).result);
    expect(Object.keys(e!.result as object).sort()).toEqual(['mysql', 'ucast']); // a Rego object: keys sorted, not Go's struct order
    // Empty options are left out (Go's omitempty); key order of OPA's options struct.
    expect(e!.custom).toEqual({
      mask_rule: 'data.shop.masks',
      options: { targetSQLTableMappings: options.targetSQLTableMappings, targetDialects: options.targetDialects, maskRule: 'data.shop.masks' },
      type: 'open-policy-agent/compile',
      unknowns: ['input.tickets', 'input.users'],
    });
    expect(Object.keys(e!.custom!.options as object)).toEqual(['targetSQLTableMappings', 'targetDialects', 'maskRule']);
  });

  it('logs an unconditional NO without a result, and no mask rule as ""', async () => {
    const r = await filter('shop/never', PG, { input: {}, unknowns: ['input.fruits'] });
    expect(r.status).toBe(200);
    const [e] = await uploaded();
    expect(e!.path).toBe('shop/never');
    expect(e).not.toHaveProperty('result');
    expect(e!.custom).toMatchObject({ mask_rule: '', unknowns: ['input.fruits'] });
    expect(r.json).toEqual({}); // no budget in the input: never true
  });

  it('logs nothing for failed filter requests and for classic partial evaluation', async () => {
    expect((await filter('shop/include', 'text/plain', { input: {} })).status).toBe(400);
    expect((await filter('shop/include', PG, { unknowns: ['not a ref'] })).status).toBe(400);
    const pe = await app.inject({ method: 'POST', url: '/v1/compile', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query: 'input.x > 1' }) });
    expect(pe.statusCode).toBe(200);
    expect(await uploaded()).toEqual([]);
  });
});

describe('instrument on /v1/compile/{path}', () => {
  it('adds the query compile stage timers when the partial-evaluation query is planned', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/compile/shop/include?instrument', headers: { accept: 'application/vnd.opa.ucast.all+json', 'content-type': 'application/json' }, payload: JSON.stringify({ input: { budget: 3 }, unknowns: ['input.fruits', 'input.other'] }) });
    expect(r.statusCode).toBe(200);
    const metrics = (JSON.parse(r.body) as { metrics: Record<string, number> }).metrics;
    expect(Object.keys(metrics)).toEqual(expect.arrayContaining(['timer_query_compile_stage_parse_ns', 'timer_query_compile_stage_plan_ns', 'timer_rego_partial_eval_ns', 'timer_compile_translate_queries_ns']));
    await uploaded(); // the request was logged; keep the other tests' uploads apart
  });
});
