// Source routes (control-plane-api.md §4.4, §4.5): CRUD plus source data, JSON
// documents stored inside a source at a path (`<path>/data.json`) and injected
// into bundles by the builder. Data routes check that the source exists (404)
// before authorization (403): reading needs `sources.data.read`, writing
// `sources.data.write` (the source's owner has both). A missing document reads
// as `{}` (no `result`), as in the reference.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { principalOf, requireAllowed, type Action } from '../auth.js';
import { toSourceDef } from '../config/definitions.js';
import { InvalidParameter, NotFound } from '../errors.js';
import { nameParam, OK, requireBody, sendJSON, type RouteContext } from './common.js';
import { registerDefinitionRoutes } from './definitions.js';

/** The data path of a request: slash-separated, no empty, `.` or `..` segments. */
export function dataPathOf(req: FastifyRequest): string {
  const raw = (req.params as Record<string, string | undefined>)['*'] ?? '';
  const segments = raw.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..')) throw new InvalidParameter(`invalid data path "${raw}"`);
  return segments.join('/');
}

export function registerSourceRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerDefinitionRoutes(app, ctx, {
    kind: 'source',
    plural: 'sources',
    param: 'source',
    toDef: toSourceDef,
    affected: () => undefined,
  });

  /** Resolve source and path, check existence then permission. */
  const target = async (req: FastifyRequest, action: Action): Promise<{ source: string; path: string }> => {
    const p = principalOf(req);
    const source = nameParam(req, 'source');
    const path = dataPathOf(req);
    const owner = await ctx.store.ownerOf('source', source);
    if (owner === undefined) throw new NotFound(`source "${source}" not found`);
    requireAllowed(p, 'source', action, owner);
    return { source, path };
  };

  for (const url of ['/v1/sources/:source/data', '/v1/sources/:source/data/*']) {
    app.get(url, async (req, reply) => {
      const { source, path } = await target(req, 'data.read');
      const value = await ctx.store.getSourceData(source, path);
      return sendJSON(req, reply, value === undefined ? {} : { result: value });
    });

    const write = async (req: FastifyRequest): Promise<void> => {
      const { source, path } = await target(req, 'data.write');
      await ctx.store.putSourceData(source, path, requireBody(req));
      ctx.notify();
    };
    app.put(url, async (req, reply) => {
      await write(req);
      return sendJSON(req, reply, OK);
    });
    app.post(url, async (req, reply) => {
      await write(req);
      return sendJSON(req, reply, OK);
    });

    app.delete(url, async (req, reply) => {
      const { source, path } = await target(req, 'data.write');
      await ctx.store.deleteSourceData(source, path);
      ctx.notify();
      return sendJSON(req, reply, OK);
    });
  }
}
