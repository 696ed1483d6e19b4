// POST /v1/stacks-preview (Regent extension): which bundles a stack with these
// selectors would apply to, before it is saved. The body is a stack body's
// `selector` and `exclude_selector` (validated by the same schema as a stack
// PUT), and the matching is the builder's own (builder/selector.ts), so the
// preview cannot disagree with a build. Bundles the caller may not view are
// left out (owners see their own), as in GET /v1/bundles.
//
// GET /v1/whoami (Regent extension): `{"result": {"id", "role"}}`, the token
// name and role of the calling key, for any authenticated key (engine keys
// too). The dashboard reads it to decide which controls to show.
import type { FastifyInstance } from 'fastify';
import { principalOf, visibilityOf } from '../auth.js';
import { stackApplies } from '../builder/selector.js';
import { toStackDef } from '../config/definitions.js';
import { InvalidParameter } from '../errors.js';
import { requireBody, sendJSON, type RouteContext } from './common.js';

export function registerPreviewRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/v1/whoami', async (req, reply) => {
    const p = principalOf(req);
    return sendJSON(req, reply, { result: { id: p.id, role: p.role } });
  });

  app.post('/v1/stacks-preview', async (req, reply) => {
    const p = principalOf(req);
    const body = requireBody(req);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new InvalidParameter('stacks preview: body must be a JSON object');
    }
    const { selector, exclude_selector } = body as Record<string, unknown>;
    const stack = toStackDef({ selector, exclude_selector }, 'preview');
    const owner = visibilityOf(p, 'bundle');
    const bundles = await ctx.store.listBundles();
    const names: string[] = [];
    for (const b of bundles) {
      if (owner !== undefined && (await ctx.store.ownerOf('bundle', b.name)) !== owner) continue;
      if (stackApplies(stack, b.labels)) names.push(b.name);
    }
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return sendJSON(req, reply, { result: { bundles: names } });
  });
}
