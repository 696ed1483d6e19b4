// Config API: GET /v1/config returns the active configuration with service
// credentials and key material removed.
import type { FastifyInstance } from 'fastify';
import { redactConfig } from '../config/config.js';
import type { ServerContext } from './context.js';
import { stringify } from './json.js';
import { QueryParams } from './params.js';
import { sendJSON } from './reply.js';

export function registerConfigRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/v1/config', { config: { handler: 'v1/config' } }, (req, reply) => {
    const result = redactConfig(ctx.config.document);
    return sendJSON(req, reply, 200, stringify({ result }, QueryParams.fromUrl(req.url).bool('pretty')));
  });
}
