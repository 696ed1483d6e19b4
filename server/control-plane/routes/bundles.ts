// Bundle routes: CRUD (definitions.ts) plus the status records the builder
// writes (control-plane-api.md §4.3). Reading statuses needs the role
// permission `bundles.statuses.view` (administrator, viewer); owning the bundle
// is not enough, as in the reference. An unknown bundle has an empty status list
// and no latest status (404). `POST /v1/bundles/{b}/rebuild` (Regent extension)
// starts a build at once.
import type { FastifyInstance } from 'fastify';
import { principalOf, requireAllowed } from '../auth.js';
import { toBundleDef } from '../config/definitions.js';
import { NotFound } from '../errors.js';
import { nameParam, OK, queryParam, sendJSON, statusLimit, type RouteContext } from './common.js';
import { registerDefinitionRoutes } from './definitions.js';

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
