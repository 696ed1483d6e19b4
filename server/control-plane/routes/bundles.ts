// Bundle routes: CRUD (definitions.ts) plus the status records the builder
// writes (control-plane-api.md §4.3). Reading statuses needs the role
// permission `bundles.statuses.view` (administrator, viewer); owning the bundle
// is not enough, as in the reference. An unknown bundle has an empty status list
// and no latest status (404). Regent extensions:
//   POST /v1/bundles/{b}/rebuild              start a build at once
//   GET  /v1/bundles/{b}/status/latest/errors the latest record and its located
//                                             Rego errors {file,row,col,code,message,source?}
//   GET  /v1/bundles-summary                  a page of bundles with their latest
//                                             record each, in one request (the
//                                             dashboard's Bundles list polls it)
//   GET  /v1/bundles/{b}/stacks               the stacks whose selectors match the
//                                             bundle (the builder's matching)
import type { FastifyInstance } from 'fastify';
import { allowed, principalOf, requireAllowed, visibilityOf } from '../auth.js';
import { stackApplies } from '../builder/selector.js';
import { toBundleDef } from '../config/definitions.js';
import { NotFound } from '../errors.js';
import type { BundleDef, StatusRow } from '../types.js';
import { listBody, listOptions, nameParam, OK, queryParam, sendJSON, statusLimit, type RouteContext } from './common.js';
import { registerDefinitionRoutes } from './definitions.js';

/** An item of GET /v1/bundles-summary. */
export interface BundleSummary {
  name: string;
  labels: Record<string, string>;
  latest_status?: StatusRow | null;
}

/**
 * `rebuild` queues an immediate build of one bundle (the scheduler's rebuildNow);
 * it serves `POST /v1/bundles/{b}/rebuild`, a Regent extension.
 */
export function registerBundleRoutes(app: FastifyInstance, ctx: RouteContext, rebuild?: (bundle: string) => void): void {
  registerDefinitionRoutes(app, ctx, {
    kind: 'bundle',
    plural: 'bundles',
    param: 'bundle',
    toDef: toBundleDef,
    affected: (name) => [name],
  });

  app.get('/v1/bundles/:bundle/status/latest', async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, 'bundle');
    requireAllowed(p, 'bundle', 'statuses.view', undefined);
    const latest = await ctx.store.latestStatus(name);
    if (!latest) throw new NotFound(`no status for bundle "${name}"`);
    return sendJSON(req, reply, { result: latest });
  });

  // Regent extension: the latest record with its located errors (`[]` when it has none).
  app.get('/v1/bundles/:bundle/status/latest/errors', async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, 'bundle');
    requireAllowed(p, 'bundle', 'statuses.view', undefined);
    const latest = await ctx.store.latestStatusErrors(name);
    if (!latest) throw new NotFound(`no status for bundle "${name}"`);
    return sendJSON(req, reply, { result: { ...latest.status, errors: latest.errors } });
  });

  // Regent extension: one page of bundles (paged and owner-filtered as GET
  // /v1/bundles) with the latest status record of each, read in one statement.
  // `latest_status` is null before a first build, and left out for callers
  // that may not read statuses (owner keys).
  app.get('/v1/bundles-summary', async (req, reply) => {
    const p = principalOf(req);
    const page = await ctx.store.list('bundle', listOptions(req, visibilityOf(p, 'bundle')));
    const statuses = allowed(p, 'bundle', 'statuses.view', undefined)
      ? await ctx.store.latestStatuses(page.items.map((b) => b.name))
      : undefined;
    const result = page.items.map((b: BundleDef): BundleSummary => {
      const item: BundleSummary = { name: b.name, labels: b.labels ?? {} };
      if (statuses) item.latest_status = statuses.get(b.name) ?? null;
      return item;
    });
    const body: { result: BundleSummary[]; next_cursor?: string } = { result };
    const next = listBody(page, (x) => x).next_cursor;
    if (next !== undefined) body.next_cursor = next;
    return sendJSON(req, reply, body);
  });

  // Regent extension: the stacks that apply to a bundle, matched as the builder
  // matches them. The bundle must be visible to the caller (404 otherwise);
  // only stacks the caller may view are named (stack owners: their own).
  app.get('/v1/bundles/:bundle/stacks', async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, 'bundle');
    const bundle = await ctx.store.get('bundle', name, visibilityOf(p, 'bundle'));
    if (!bundle) throw new NotFound(`bundle "${name}" not found`);
    const owner = visibilityOf(p, 'stack');
    const stacks: string[] = [];
    for (const s of await ctx.store.listStacks()) {
      if (owner !== undefined && (await ctx.store.ownerOf('stack', s.name)) !== owner) continue;
      if (stackApplies(s, bundle.labels)) stacks.push(s.name);
    }
    stacks.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return sendJSON(req, reply, { result: { stacks } });
  });

  app.get('/v1/bundles/:bundle/status', async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, 'bundle');
    requireAllowed(p, 'bundle', 'statuses.view', undefined);
    const limit = statusLimit(req);
    const revision = queryParam(req, 'revision') || undefined;
    return sendJSON(req, reply, { result: await ctx.store.listStatuses(name, revision, limit) });
  });

  // Regent extension: build now. Needs `manage` on the bundle, checked before
  // existence as DELETE does (a caller without it learns nothing about names).
  app.post('/v1/bundles/:bundle/rebuild', async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, 'bundle');
    const owner = await ctx.store.ownerOf('bundle', name);
    requireAllowed(p, 'bundle', 'manage', owner);
    if (owner === undefined) throw new NotFound(`bundle "${name}" not found`);
    if (rebuild) rebuild(name);
    else ctx.notify([name]);
    return sendJSON(req, reply, OK, 202);
  });
}
