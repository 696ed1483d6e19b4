// Bundle routes: CRUD (definitions.ts) plus the status records the builder
// writes (control-plane-api.md §4.3). Reading statuses needs the role
// permission `bundles.statuses.view` (administrator, viewer); owning the bundle
// is not enough, as in the reference. An unknown bundle has an empty status list
// and no latest status (404).
import type { FastifyInstance } from 'fastify';
import { principalOf, requireAllowed } from '../auth.js';
import { toBundleDef } from '../config/definitions.js';
import { NotFound } from '../errors.js';
import { nameParam, queryParam, sendJSON, statusLimit, type RouteContext } from './common.js';
import { registerDefinitionRoutes } from './definitions.js';

export function registerBundleRoutes(app: FastifyInstance, ctx: RouteContext): void {
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
}
