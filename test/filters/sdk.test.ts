// The official TypeScript SDK (@open-policy-agent/opa, from npm) as a client of a
// running `regent run --server`: getFilters for SQL and UCAST (prisma, with the
// SDK's own ucast-prisma conversion and mask helper), getMultipleFilters, the
// SDK's "No result" error for an unconditional NO, its ClientError for fragment
// errors, and the low-level compileQueryWithPartialEvaluation call. The SDK only
// accepts a reply whose Content-Type is the media type it asked for.
// Needs compiler/partial (skipped before it is there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPAClient } from '@open-policy-agent/opa';
import { OpaApiClient } from '@open-policy-agent/opa/sdk/sdk.js';
import { CompileQueryWithPartialEvaluationAcceptEnum } from '@open-policy-agent/opa/funcs/compileQueryWithPartialEvaluation.js';
import { startServer, type RunningServer } from '../reliability/helpers.js';
import { benchFiltersPolicy, benchRoles, partialEval } from './helpers.js';

const ready = partialEval() !== undefined;

const SHOP = `package shop
# METADATA
# scope: document
# compile:
#   unknowns: [input.fruits]
#   mask_rule: mask
include if input.fruits.colour in input.fav_colours
include if { not input.fav_colours; endswith(input.fruits.name, "apple") }
nope if false
mask := {"fruits": {"owner": {"replace": {"value": "***"}}}}
bad if input.fruits.colour
`;

let server: RunningServer | undefined;

beforeAll(async () => {
  if (!ready) return;
  server = await startServer({
    files: { 'shop.rego': SHOP, 'bench_filters.rego': benchFiltersPolicy(), 'roles.json': JSON.stringify({ roles: benchRoles() }) },
    args: ['--workers', '0'],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('@open-policy-agent/opa against regent run --server', () => {
  it.skipIf(!ready)('getFilters: SQL', async () => {
    const opa = new OPAClient(server!.url);
    const r = await opa.getFilters('shop/include', { fav_colours: ['red', 'green'] }, { target: 'postgresql' });
    expect(r).toEqual({ query: "WHERE fruits.colour IN (E'red', E'green')", masks: { fruits: { owner: { replace: { value: '***' } } } } });
    const m = await opa.getFilters('shop/include', {}, { target: 'mysql', tableMappings: { fruits: { $self: 'F', name: 'N' } } });
    expect(m.query).toBe("WHERE F.N LIKE '%apple'");
  });

  it.skipIf(!ready)('getFilters: UCAST (prisma) with the SDK conversion and masks', async () => {
    const opa = new OPAClient(server!.url);
    const r = (await opa.getFilters('shop/include', { fav_colours: ['red'] }, 'fruits')) as { query: unknown; mask: (o: unknown) => unknown };
    expect(r.query).toEqual({ colour: { in: ['red'] } });
    expect(r.mask({ owner: 'bob', name: 'x' })).toEqual({ owner: '***', name: 'x' });
    const all = await opa.getFilters('shop/include', { fav_colours: ['red'] }, { target: 'ucastALL' });
    expect(all.query).toEqual({ type: 'field', field: 'fruits.colour', operator: 'in', value: ['red'] });
  });

  it.skipIf(!ready)('getMultipleFilters: the bench policy for several targets', async () => {
    const opa = new OPAClient(server!.url);
    const r = await opa.getMultipleFilters('filters/include', { user: 'caesar', tenant: { id: 2, name: 'acmecorp' } }, { targets: ['postgresql', 'sqlite', 'ucastPrisma'] });
    const where = "((tickets.tenant = E'2' AND users.name = E'caesar') OR (tickets.tenant = E'2' AND tickets.assignee IS NULL AND tickets.resolved = FALSE))";
    expect((r as any).postgresql?.query ?? (r as any).targets?.postgresql?.query).toBe(`WHERE ${where}`);
  });

  it.skipIf(!ready)('unconditional NO and fragment errors surface as SDK errors', async () => {
    const opa = new OPAClient(server!.url);
    await expect(opa.getFilters('shop/nope', {}, { target: 'postgresql', unknowns: ['input.fruits'] })).rejects.toThrow(/No result/);
    await expect(opa.getFilters('shop/bad', {}, { target: 'postgresql', unknowns: ['input.fruits'] })).rejects.toMatchObject({ code: 'evaluation_error' });
  });

  it.skipIf(!ready)('low level: compileQueryWithPartialEvaluation', async () => {
    const api = new OpaApiClient({ serverURL: server!.url });
    const r = await api.compileQueryWithPartialEvaluation(
      { path: 'shop/include', requestBody: { input: { fav_colours: ['blue'] } } },
      { acceptHeaderOverride: CompileQueryWithPartialEvaluationAcceptEnum.applicationVndOpaSqlSqlitePlusJson },
    );
    expect(r.httpMeta.response.status).toBe(200);
    expect(r.compileResultSQL?.result?.query).toBe("WHERE fruits.colour IN ('blue')");
  });
});
