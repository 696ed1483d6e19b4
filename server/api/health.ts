// Health API: GET /health (can the engine evaluate; with `bundles`, are all
// configured bundles activated; with `plugins`, are all plugins OK, minus
// `exclude-plugin`), and GET /health/<rule> which evaluates
// data.system.health.<rule> with {plugins_ready, plugin_state} as input.
// Health answers are `{}` or `{"error": "..."}`, not the error envelope.
import type { FastifyInstance } from 'fastify';
import { fromJS } from '../../runtime/index.js';
import type { ServerContext } from './context.js';
import { QueryParams, dataQuery, pathSegments, refText } from './params.js';
import { sendHealth } from './reply.js';

export function registerHealthRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const config = { handler: 'health' };
  app.get('/health', { config }, (req, reply) => {
    const params = QueryParams.fromUrl(req.url);
    try {
      const rows = ctx.engine.evalLocal('x = 1');
      if (rows.length !== 1) return sendHealth(reply, 'unable to perform evaluation');
    } catch {
      return sendHealth(reply, 'unable to perform evaluation');
    }
    if ((params.bool('bundles') || params.bool('bundle')) && !ctx.host.bundlesActivated()) return sendHealth(reply, 'one or more bundles are not activated');
    if (params.bool('plugins') && ctx.host.pluginsNotOK(params.all('exclude-plugin')).length > 0) return sendHealth(reply, 'one or more plugins are not up');
    return sendHealth(reply);
  });
  app.get('/health/*', { config }, (req, reply) => {
    const segs = ['system', 'health', ...pathSegments(req.url, '/health')];
    const name = refText(segs);
    const input = fromJS({ plugins_ready: ctx.host.pluginsReady, plugin_state: ctx.host.pluginStates() });
    try {
      const rows = ctx.engine.evalLocal(dataQuery(segs), input);
      const value = rows[0]?.expressions[0]?.value;
      if (value === undefined) return sendHealth(reply, `health check (${name}) was undefined`);
      if (value !== true) return sendHealth(reply, `health check (${name}) returned unexpected value`);
      return sendHealth(reply);
    } catch (e) {
      return sendHealth(reply, e instanceof Error ? String(e) : String(e));
    }
  });
}
