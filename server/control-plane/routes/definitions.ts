// Generic list/get/put/delete routes for bundles, sources and stacks
// (control-plane-api.md §4.3, 4.4, 4.6). Each kind supplies its plural path
// segment, its body normaliser and which bundles a change affects; the handlers
// are identical: authorize (auth.ts), call storage, notify the builder, answer.
import type { FastifyInstance } from 'fastify';
import { deleteGuard, principalOf, putGuard, visibilityOf } from '../auth.js';
import { NotFound } from '../errors.js';
import type { DefByKind, Kind } from '../types.js';
import { listBody, listOptions, nameParam, OK, requireBody, sendJSON, type RouteContext } from './common.js';

type DefKind = Exclude<Kind, 'secret'>;

export interface DefinitionRoutes<K extends DefKind> {
  kind: K;
  /** Plural path segment: `bundles`, `sources`, `stacks`. */
  plural: string;
  /** Route parameter name: `bundle`, `source`, `stack`. */
  param: string;
  /** Validate and normalise a PUT body (throws InvalidParameter). */
  toDef(body: unknown, name: string): DefByKind[K];
  /** Bundles to rebuild after a change of `name` (undefined: all). */
  affected(name: string): string[] | undefined;
}

export function registerDefinitionRoutes<K extends DefKind>(
  app: FastifyInstance,
  ctx: RouteContext,
  spec: DefinitionRoutes<K>,
): void {
  const { kind, plural, param } = spec;
  const one = `/v1/${plural}/:${param}`;

  app.get(`/v1/${plural}`, async (req, reply) => {
    const p = principalOf(req);
    const page = await ctx.store.list(kind, listOptions(req, visibilityOf(p, kind)));
    return sendJSON(req, reply, listBody(page, (d) => d, kind === 'stack' ? null : undefined));
  });

  app.get(one, async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, param);
    const def = await ctx.store.get(kind, name, visibilityOf(p, kind));
    if (!def) throw new NotFound(`${kind} "${name}" not found`);
    return sendJSON(req, reply, { result: def });
  });

  app.put(one, async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, param);
    const def = spec.toDef(requireBody(req), name);
    await ctx.store.put(kind, def, p.id, putGuard(p, kind));
    ctx.notify(spec.affected(name));
    return sendJSON(req, reply, OK);
  });

  app.delete(one, async (req, reply) => {
    const p = principalOf(req);
    const name = nameParam(req, param);
    await ctx.store.delete(kind, name, deleteGuard(p, kind, name));
    ctx.notify(spec.affected(name));
    return sendJSON(req, reply, OK);
  });
}
