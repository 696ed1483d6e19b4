// GET /health (control-plane-api.md §4.2): no authentication; 200 `{}` once
// start-up (migrations, configuration load) has finished, 500 before.
import type { FastifyInstance } from 'fastify';
import { NotReady } from '../errors.js';
import { sendError, type RouteContext } from './common.js';

export function registerHealthRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/health', async (req, reply) => {
    if (!ctx.isReady()) return sendError(req, reply, new NotReady());
    return reply.code(200).type('application/json').send('{}\n');
  });
}
