// Prometheus metrics: GET /metrics in the text exposition format, with the
// process metrics and http_request_duration_seconds{code,handler,method} observed
// for every request (OPA's handler names; default buckets as OPA's, overridable
// with server.metrics.prom.http_request_duration_seconds.buckets).
import type { FastifyInstance } from 'fastify';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ServerConfig } from '../config/config.js';
import type { ServerContext } from './context.js';
import type { RouteFlags } from './reply.js';

const DEFAULT_BUCKETS = [1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 0.01, 0.1, 1];

function configuredBuckets(config: ServerConfig): number[] {
  const server = config.document.server as { metrics?: { prom?: { http_request_duration_seconds?: { buckets?: unknown } } } } | undefined;
  const buckets = server?.metrics?.prom?.http_request_duration_seconds?.buckets;
  return Array.isArray(buckets) && buckets.every((b) => typeof b === 'number') ? (buckets as number[]) : DEFAULT_BUCKETS;
}

export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function registerMetricsRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'A histogram of duration for requests.',
    labelNames: ['code', 'handler', 'method'],
    buckets: configuredBuckets(ctx.config),
    registers: [ctx.prometheus],
  });
  // One labelled child per (code, handler, method): prom-client's label handling
  // is the costly part of observe(), and the label sets are few.
  const children = new Map<string, ReturnType<typeof histogram.labels>>();
  app.addHook('onResponse', (req, reply, done) => {
    const flags = (reply.routeOptions.config ?? {}) as RouteFlags;
    const handler = flags.handler ?? 'catchall';
    const key = `${reply.statusCode} ${handler} ${req.method}`;
    let child = children.get(key);
    if (!child) {
      child = histogram.labels({ code: String(reply.statusCode), handler, method: req.method.toLowerCase() });
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { config: { handler: 'metrics' } }, async (_req, reply) => {
    const text = await ctx.prometheus.metrics();
    return reply.code(200).header('content-type', ctx.prometheus.contentType).send(text);
  });
}
