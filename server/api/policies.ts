// Policy API: list, read, create/replace (PUT, body is Rego text) and delete policy
// modules. Ids come from the unescaped URL path and may contain '/'. PUT and
// DELETE recompile the whole module set first; failures leave the old set active.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StorageError } from '../../runtime/index.js';
import { moduleToAST } from '../engine/ast-json.js';
import type { PolicyRecord } from '../engine/policies.js';
import { bodyText } from './body.js';
import { RequestMetrics, type ServerContext } from './context.js';
import { badRequest } from './errors.js';
import { stringify } from './json.js';
import { QueryParams, urlPath } from './params.js';
import { sendJSON } from './reply.js';

const PREFIX = '/v1/policies/';

function policyId(req: FastifyRequest): string {
  try {
    return decodeURIComponent(urlPath(req.url).slice(PREFIX.length));
  } catch {
    throw badRequest('invalid policy id');
  }
}

/** Field order as OPA's PolicyV1 struct: ast, id, raw. */
function policyJSON(r: PolicyRecord): Record<string, unknown> {
  return { ast: moduleToAST(r.module), id: r.id, raw: r.raw };
}

function notFound(id: string): StorageError {
  return new StorageError('storage_not_found_error', `policy id "${id}"`);
}

/** `instrument` implies `metrics`, and adds the module-compile stage timers. */
function wantsMetrics(params: QueryParams): boolean {
  return params.bool('metrics') || params.bool('instrument');
}

async function putPolicy(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const params = QueryParams.fromUrl(req.url);
  const metrics = new RequestMetrics();
  const text = bodyText(req, ctx.limits, false);
  metrics.add(await ctx.engine.putPolicy(policyId(req), text, params.bool('instrument')));
  return sendJSON(req, reply, 200, stringify(wantsMetrics(params) ? { metrics: metrics.snapshot() } : {}, params.bool('pretty')));
}

async function deletePolicy(ctx: ServerContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const params = QueryParams.fromUrl(req.url);
  const metrics = new RequestMetrics();
  metrics.add(await ctx.engine.deletePolicy(policyId(req), params.bool('instrument')));
  return sendJSON(req, reply, 200, stringify(wantsMetrics(params) ? { metrics: metrics.snapshot() } : {}, params.bool('pretty')));
}

export function registerPolicyRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const config = { handler: 'v1/policies' };
  app.get('/v1/policies', { config }, (req, reply) => {
    const list = ctx.engine.policies().map(policyJSON);
    return sendJSON(req, reply, 200, stringify({ result: list }, QueryParams.fromUrl(req.url).bool('pretty')));
  });
  app.get('/v1/policies/*', { config }, (req, reply) => {
    const id = policyId(req);
    const record = ctx.engine.getPolicy(id);
    if (!record) throw notFound(id);
    return sendJSON(req, reply, 200, stringify({ result: policyJSON(record) }, QueryParams.fromUrl(req.url).bool('pretty')));
  });
  app.put('/v1/policies/*', { config }, (req, reply) => putPolicy(ctx, req, reply));
  app.delete('/v1/policies/*', { config }, (req, reply) => deletePolicy(ctx, req, reply));
}
