// The /v1/compile/{path} route on its own: Accept handling, Content-Type echo,
// GET without body, unknowns from annotations vs the request, mask rules (real
// evaluation), unconditional answers, multitarget shapes, error mapping and the
// prepared-query cache with its invalidation. The partial evaluator is replaced by
// canned residuals (what PE would return), so only the route and the translator run.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery, type Body } from '../../compiler/index.js';
import { setPartialEvaluator } from '../../server/api/compile-filters.js';
import type { FilterCaches } from '../../server/api/compile-filters-cache.js';
import { toJS } from '../../runtime/index.js';
import { call, putPolicy, rawRequest, type TestServer } from '../server/helpers.js';
import { benchFiltersPolicy, benchRoles, filterRequest, serverWith } from './helpers.js';

const PG = 'application/vnd.opa.sql.postgresql+json';
const PRISMA = 'application/vnd.opa.ucast.prisma+json';
const MULTI = 'application/vnd.opa.multitarget+json';

let residual: string[] = [];
const calls: { query: string; unknowns: string[]; input: unknown }[] = [];

function cannedPE(_policy: unknown, query: string, opts: { unknowns: string[]; input?: unknown }): { queries: Body[]; support: [] } {
  calls.push({ query, unknowns: opts.unknowns, input: opts.input === undefined ? undefined : toJS(opts.input as never) });
  return { queries: residual.map((b) => (b === '' ? [] : parseQuery(b, 'filters.rego'))), support: [] };
}

const FILTERS = `package shop
# METADATA
# scope: document
# compile:
#   unknowns: [input.fruits]
#   mask_rule: data.shop.mask
include if input.fruits.name == input.favorite

mask := {"fruits": {"owner": {"replace": {"value": "***"}}}} if not input.admin
other_mask := {"fruits": {"price": {}}}
`;

let server: TestServer & { loadErrors: unknown[] };

beforeAll(async () => {
  setPartialEvaluator(cannedPE as never);
  server = await serverWith({ 'shop.rego': FILTERS, 'bench.rego': benchFiltersPolicy(), 'bad.rego': 'package bad\n# METADATA\n# compile:\n#  unknowns: [inpu.x, data.y]\ninclude if input.x.y == 1\n' }, { roles: benchRoles() });
});
afterAll(async () => {
  setPartialEvaluator(undefined);
  await server.close();
});
afterEach(() => {
  calls.length = 0;
  residual = [];
});

describe('Accept header', () => {
  it('missing, multiple, unsupported: 400 invalid_parameter', async () => {
    const none = await rawRequest(server, 'POST', '/v1/compile/filters/include', '{}');
    expect([none.status, JSON.parse(none.body.toString()).message]).toEqual([400, 'Accept header: missing required header']);
    for (const [accept, msg] of [
      ['*/*', 'Accept header: unsupported header: */*'],
      [`${PG}, ${PRISMA}`, 'Accept header: multiple headers not supported'],
      ['application/vnd.styra.sql.postgresql+json', 'Accept header: unsupported header: application/vnd.styra.sql.postgresql+json'],
    ] as const) {
      const r = await filterRequest(server, 'POST', '/v1/compile/filters/include', accept, {});
      expect(r.status).toBe(400);
      expect(r.json()).toEqual({ code: 'invalid_parameter', message: msg });
    }
  });
  it('application/json passes the check and fails at prepare (500)', async () => {
    const r = await filterRequest(server, 'POST', '/v1/compile/filters/include', 'application/json', {});
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({ code: 'internal_error', message: 'unknown target/dialect combination: /' });
  });
});

describe('replies', () => {
  it('echoes the media type; GET without a body; annotation unknowns and mask rule', async () => {
    residual = ['input.fruits.name = "apple"'];
    const r = await filterRequest(server, 'GET', '/v1/compile/shop/include', PG, null);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(PG);
    expect(r.json()).toEqual({ result: { query: "WHERE fruits.name = E'apple'", masks: { fruits: { owner: { replace: { value: '***' } } } } } });
    expect(calls[0]).toEqual({ query: 'data.shop.include', unknowns: ['input.fruits'], input: undefined });
  });
  it('GET may carry a body', async () => {
    residual = ['input.fruits.name = "kiwi"'];
    const text = JSON.stringify({ input: { favorite: 'kiwi', admin: true } });
    const r = await rawRequest(server, 'GET', '/v1/compile/shop/include', text, { accept: PG, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    expect([r.status, JSON.parse(r.body.toString())]).toEqual([200, { result: { query: "WHERE fruits.name = E'kiwi'" } }]);
    expect(calls[0]!.input).toEqual({ favorite: 'kiwi', admin: true });
  });
  it('request unknowns win; maskRule relative to the path package; empty masks are left out', async () => {
    residual = ['input.fruits.name = "banana"'];
    const r = await filterRequest(server, 'POST', '/v1/compile/shop/include', PRISMA, { input: { favorite: 'banana', admin: true }, unknowns: ['input.fruits', 'input.baskets'], options: { maskRule: 'mask' } });
    expect(r.json()).toEqual({ result: { query: { type: 'field', field: 'fruits.name', operator: 'eq', value: 'banana' } } });
    expect(calls[0]!.unknowns).toEqual(['input.fruits', 'input.baskets']);
    expect(calls[0]!.input).toEqual({ favorite: 'banana', admin: true });
    const m = await filterRequest(server, 'POST', '/v1/compile/shop/include', PG, { options: { maskRule: 'data.shop.other_mask' } });
    expect(m.json()).toEqual({ result: { query: "WHERE fruits.name = E'banana'", masks: { fruits: { price: {} } } } });
  });
  it('unconditional NO is {}, YES is "" / {}', async () => {
    residual = [];
    expect((await filterRequest(server, 'POST', '/v1/compile/shop/include', PG, {})).json()).toEqual({});
    residual = ['input.fruits.a = 1', ''];
    expect((await filterRequest(server, 'POST', '/v1/compile/shop/include', PG, { input: { admin: true } })).json()).toEqual({ result: { query: '' } });
    expect((await filterRequest(server, 'POST', '/v1/compile/shop/include', PRISMA, { input: { admin: true } })).json()).toEqual({ result: { query: {} } });
  });
  it('multitarget: one key per target, one ucast, NO leaves targets out', async () => {
    residual = ['input.tickets.tenant = 2; input.users.name = "caesar"'];
    const body = { input: { user: 'caesar', tenant: { id: 2, name: 'acmecorp' } }, options: { targetDialects: ['sql+mysql', 'ucast+prisma', 'ucast+all', 'sql+sqlserver'] } };
    const r = await filterRequest(server, 'POST', '/v1/compile/filters/include', MULTI, body);
    expect(r.headers.get('content-type')).toBe(MULTI);
    const masks = { tickets: { id: { replace: { value: '***' } } } };
    expect(r.json()).toEqual({
      result: {
        ucast: { query: { type: 'compound', operator: 'and', value: [{ type: 'field', field: 'tickets.tenant', operator: 'eq', value: 2 }, { type: 'field', field: 'users.name', operator: 'eq', value: 'caesar' }] }, masks },
        mysql: { query: "WHERE (tickets.tenant = '2' AND users.name = 'caesar')", masks },
        sqlserver: { query: "WHERE (tickets.tenant = N'2' AND users.name = N'caesar')", masks },
      },
    });
    expect(calls[0]!.unknowns).toEqual(['input.tickets', 'input.users']);
    residual = [];
    expect((await filterRequest(server, 'POST', '/v1/compile/filters/include', MULTI, body)).json()).toEqual({ result: {} });
  });
  it('?pretty and ?metrics', async () => {
    residual = ['input.fruits.name = "apple"'];
    const r = await filterRequest(server, 'POST', '/v1/compile/shop/include?pretty', PG, { input: { admin: true } });
    expect(r.text).toBe('{\n  "result": {\n    "query": "WHERE fruits.name = E\'apple\'"\n  }\n}\n');
    const m = await filterRequest(server, 'POST', '/v1/compile/shop/include?metrics', PG, { input: { admin: true } });
    expect(Object.keys((m.json() as any).metrics)).toContain('timer_server_handler_ns');
  });
});

describe('hints', () => {
  it('a ref close to an unknown table gets a typo hint at its expression', async () => {
    await putPolicy(server, 'hint.rego', 'package hint\n# METADATA\n# scope: document\n# compile:\n#   unknowns: [input.fruits]\ninclude if input.fruits.name == "apple"\ninclude if input.fruit.cost < input.max\n');
    residual = ['input.fruits.name = "apple"'];
    const r = await filterRequest(server, 'POST', '/v1/compile/hint/include', PG, { input: { max: 1 } });
    expect(r.json()).toEqual({ result: { query: "WHERE fruits.name = E'apple'" }, hints: [{ location: { file: 'hint.rego', row: 7, col: 12 }, message: 'input.fruit.cost undefined, did you mean input.fruits.cost?' }] });
    const known = await filterRequest(server, 'POST', '/v1/compile/hint/include', PG, { input: { max: 1, fruit: {} } });
    expect((known.json() as any).hints).toBeUndefined();
  });
});

describe('errors', () => {
  it('fragment errors: 400 evaluation_error with every error', async () => {
    residual = ['input.fruits.colour; input.fruits.name in {"a"}'];
    const r = await filterRequest(server, 'POST', '/v1/compile/shop/include', 'application/vnd.opa.ucast.minimal+json', {});
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'evaluation_error', message: 'error(s) occurred while evaluating query', errors: [{ code: 'pe_fragment_error', message: 'invalid statement "input.fruits.colour"' }, { code: 'pe_fragment_error', message: 'invalid builtin `in`: unsupported for UCAST' }] });
  });
  it('bad annotation unknowns: 400 invalid_unknown at the METADATA block', async () => {
    const r = await filterRequest(server, 'POST', '/v1/compile/bad/include', PG, {});
    expect(r.status).toBe(400);
    expect(r.json()).toEqual({ code: 'evaluation_error', message: 'error(s) occurred while evaluating query', errors: [{ code: 'invalid_unknown', message: 'unknowns must be prefixed with `input` or `data`: inpu.x', location: { file: 'bad.rego', row: 2, col: 1 } }] });
  });
  it('bad mappings and bad targets: 500; bad body, bad unknowns, no path: 400', async () => {
    residual = ['input.fruits.name = "apple"'];
    const bad = await filterRequest(server, 'POST', '/v1/compile/shop/include', PG, { options: { targetSQLTableMappings: { postgresql: 'nope' } } });
    expect([bad.status, (bad.json() as any).message]).toEqual([500, 'mappings: invalid mappings for dialect postgresql']);
    const t = await filterRequest(server, 'POST', '/v1/compile/filters/include', MULTI, { options: { targetDialects: ['sql+oracle'] } });
    expect([t.status, (t.json() as any).message]).toEqual([500, 'unsupported variant for sql: oracle']);
    const b = await call(server, 'POST', '/v1/compile/filters/include', '{"input": ', { accept: PG });
    expect([b.status, (b.json() as any).message]).toEqual([400, 'error(s) occurred while decoding request: unexpected EOF']);
    const u = await filterRequest(server, 'POST', '/v1/compile/shop/include', PG, { unknowns: ['input.'] });
    expect(u.status).toBe(400);
    expect((u.json() as any).message).toMatch(/^error\(s\) occurred while parsing unknowns: /);
    const put = await call(server, 'PUT', '/v1/compile/filters/include', '{}', { accept: PG });
    expect(put.status).toBe(405);
    const p = await filterRequest(server, 'POST', '/v1/compile/', PG, {});
    expect([p.status, (p.json() as any).message]).toEqual([400, "missing required 'path' parameter"]);
  });
});

describe('prepared-query cache', () => {
  it('hits on repeated requests, is dropped when policies or data change', async () => {
    const caches = (server.app as unknown as { regentFilterCaches?: FilterCaches }).regentFilterCaches;
    residual = ['input.fruits.name = "apple"'];
    const ask = () => filterRequest(server, 'POST', '/v1/compile/shop/include?metrics', PG, { input: { admin: true } });
    await ask();
    const hit = await ask();
    expect((hit.json() as any).metrics.counter_compile_prepared_cache_hit).toBe(1);
    await call(server, 'PUT', '/v1/data/extra', { a: 1 }, { 'content-type': 'application/json' });
    expect(((await ask()).json() as any).metrics.counter_compile_prepared_cache_hit).toBeUndefined();
    expect(((await ask()).json() as any).metrics.counter_compile_prepared_cache_hit).toBe(1);
    await putPolicy(server, 'more.rego', 'package more\np := 1\n');
    expect(((await ask()).json() as any).metrics.counter_compile_prepared_cache_hit).toBeUndefined();
    void caches;
  });
});
