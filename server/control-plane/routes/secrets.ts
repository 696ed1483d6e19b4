// Secret routes (control-plane-api.md §4.7). Values are write-only: lists and
// reads return names only, and no value reaches a response or a log line (the
// body is never logged; validation messages name fields, not values). A secret
// used by a bundle's object storage or a source's credentials cannot be deleted.
import type { FastifyInstance } from 'fastify';
import { deleteGuard, principalOf, putGuard, visibilityOf } from '../auth.js';
import { toSecretValue } from '../config/definitions.js';
import { NotFound } from '../errors.js';
import { listBody, listOptions, nameParam, OK, requireBody, sendJSON, type RouteContext } from './common.js';

export function registerSecretRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/v1/secrets', async (req, reply) => {
    const p = principalOf(req);
    const page = await ctx.store.list('secret', listOptions(req, visibilityOf(p, 'secret')));
    return sendJSON(req, reply, listBody(page, (s) => s.name, null));
  });

  app.get('/v1/secrets/:secret', async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, 'secret');
    const found = await ctx.store.get('secret', name, visibilityOf(p, 'secret'));
    if (!found) throw new NotFound(`secret "${name}" not found`);
    return sendJSON(req, reply, { result: found.name });
  });

  app.put('/v1/secrets/:secret', async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, 'secret');
    const value = toSecretValue(requireBody(req), name);
    await ctx.store.putSecret(name, value, p.id, putGuard(p, 'secret'));
    ctx.notify();
    return sendJSON(req, reply, OK);
  });

  app.delete('/v1/secrets/:secret', async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, 'secret');
    await ctx.store.delete('secret', name, deleteGuard(p, 'secret', name));
    ctx.notify();
    return sendJSON(req, reply, OK);
  });
}
