// Status API: GET /v1/status returns the status document (labels, bundle
// statuses, plugin states, metrics) when the status plugin is configured, else
// 500 "status plugin not enabled", as OPA does.
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from './context.js';
import { ApiError } from './errors.js';
import { stringify } from './json.js';
import { QueryParams } from './params.js';
import { sendJSON } from './reply.js';

export async function statusDocument(ctx: ServerContext): Promise<unknown> {
  if (ctx.plugins) return ctx.plugins.status();
  const metrics = await ctx.prometheus.getMetricsAsJSON();
  return {
    labels: ctx.host.labels(),
    bundles: ctx.host.bundleStatuses(),
    plugins: Object.fromEntries(Object.entries(ctx.host.pluginStates()).map(([name, state]) => [name, { state }])),
    metrics: { prometheus: Object.fromEntries(metrics.map((m) => [m.name, m])) },
  };
}

export function registerStatusRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/v1/status', { config: { handler: 'v1/status' } }, async (req, reply) => {
    if (!ctx.config.status) throw new ApiError(500, 'internal_error', 'status plugin not enabled');
    const result = await statusDocument(ctx);
    return sendJSON(req, reply, 200, stringify({ result }, QueryParams.fromUrl(req.url).bool('pretty')));
  });
}
