// Prometheus metrics: GET /metrics in the text exposition format, with the
// process metrics and http_request_duration_seconds{code,handler,method} observed
// for every request (OPA's handler names; default buckets as OPA's, overridable
// with server.metrics.prom.http_request_duration_seconds.buckets).
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { ServerConfig } from '../config/config.js';
import type { ServerContext } from './context.js';
import type { RouteFlags } from './reply.js';
import { HistogramFamily } from '../metrics/families.js';

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

/** Records http_request_duration_seconds{code,handler,method}. */
export type RequestDurations = (code: number, handler: string, method: string, seconds: number) => void;

/** Records http_request_duration_seconds for one handler label. */
export type RouteObserver = (code: number, method: string, seconds: number) => void;

export function registerMetricsRoutes(app: FastifyInstance, ctx: ServerContext): RequestDurations & { route(handler: string): RouteObserver } {
  const histogram = new HistogramFamily('http_request_duration_seconds', 'A histogram of duration for requests.', ['code', 'handler', 'method'], configuredBuckets(ctx.config), ctx.prometheus);
  const observe: RequestDurations = (code, handler, method, seconds) => histogram.child(String(code), handler, method.toLowerCase()).observe(seconds);
  /** An observer for one handler label that keeps its last (status, method) child: a route's traffic mostly repeats one. */
  const routeObserver = (handler: string): RouteObserver => {
    let lastCode = 0;
    let lastMethod = '';
    let lastChild: ReturnType<typeof histogram.child> | undefined;
    return (code, method, seconds) => {
      if (code !== lastCode || method !== lastMethod || lastChild === undefined) {
        lastChild = histogram.child(String(code), handler, method.toLowerCase());
        lastCode = code;
        lastMethod = method;
      }
      lastChild.observe(seconds);
    };
  };
  // Each route gets its own onResponse hook that knows its handler label, so the
  // hot path never builds reply.routeOptions (a fresh object per access).
  app.addHook('onRoute', (route) => {
    const observe = routeObserver(((route.config ?? {}) as RouteFlags).handler ?? 'catchall');
    const hook: onResponseHookHandler = (req, reply, done) => {
      observe(reply.statusCode, req.method, reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = route.onResponse === undefined ? [hook] : [...(Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]), hook];
  });
  app.get('/metrics', { config: { handler: 'metrics' } }, async (_req, reply) => {
    const text = await ctx.prometheus.metrics();
    return reply.code(200).header('content-type', ctx.prometheus.contentType).send(text);
  });
  return Object.assign(observe, { route: routeObserver });
}
