// buildServer(): the OPA-compatible REST API as a Fastify instance, ready to
// `listen` (or `inject` in tests). It wires the engine (store, policies, worker
// pool), the plugin host, the configuration, authentication/authorization, the
// routes of server/api and OPA's routing rules: 405 with an empty body for wrong
// methods on the API prefixes, 405 + Allow elsewhere, "404 page not found".
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { hostname } from 'node:os';
import type { ServerContext, BuildInfo, AttachedPlugins } from './api/context.js';
import { registerConfigRoutes } from './api/config.js';
import { registerDataRoutes } from './api/data.js';
import { registerHealthRoutes } from './api/health.js';
import { createRegistry, registerMetricsRoutes } from './api/metrics.js';
import { registerPolicyRoutes } from './api/policies.js';
import { registerQueryRoutes } from './api/query.js';
import { registerCompileFilterRoutes } from './api/compile-filters.js';
import { sendAnyError } from './api/reply.js';
import { registerStatusRoutes } from './api/status.js';
import { authorize } from './auth/authorize.js';
import type { AuthenticationMode, AuthorizationMode } from './auth/identity.js';
import { configuredPlugins, loadConfig, type ServerConfig } from './config/config.js';
import { Engine, type EngineOptions } from './engine/engine.js';
import { EngineHost } from './engine/host.js';

export interface BuildServerOptions extends EngineOptions {
  /** The configuration (default: an empty config with OPA's defaults). */
  config?: ServerConfig;
  authentication?: AuthenticationMode;
  authorization?: AuthorizationMode;
  /** Deepest nesting accepted in request bodies (default 1000). */
  maxDepth?: number;
  /** Fastify/pino logger options (default: off). */
  logger?: boolean | Record<string, unknown>;
  build?: Partial<BuildInfo>;
}

export interface RegentHandle extends ServerContext {
  /** Attach the running plugins (decision logs, status document). */
  attachPlugins(plugins: AttachedPlugins): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    regent: RegentHandle;
    regentEncoding: { gzipMinLength: number; gzipLevel: number };
  }
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** URL → methods served; other methods get OPA's catch-all 405 (empty body). */
const API_ROUTES: Record<string, string[]> = {
  '/v0/data': ['POST'],
  '/v0/data/*': ['POST'],
  '/v1/data': ['GET', 'POST', 'PUT', 'PATCH'],
  '/v1/data/*': ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  '/v1/policies': ['GET'],
  '/v1/policies/*': ['GET', 'PUT', 'DELETE'],
  '/v1/query': ['GET', 'POST'],
  '/v1/query/*': [],
};

/** URL → methods served; other methods get Go's 405 "Method Not Allowed" with Allow. */
const OTHER_ROUTES: Record<string, string[]> = {
  '/': ['GET', 'POST'],
  '/v1/config': ['GET'],
  '/v1/status': ['GET'],
  '/health': ['GET'],
  '/health/*': ['GET'],
  '/metrics': ['GET'],
};

export function buildInfo(version: string, overrides: Partial<BuildInfo> = {}): BuildInfo {
  return {
    version,
    build_commit: overrides.build_commit ?? process.env.REGENT_BUILD_COMMIT ?? '',
    build_timestamp: overrides.build_timestamp ?? process.env.REGENT_BUILD_TIMESTAMP ?? '',
    build_hostname: overrides.build_hostname ?? process.env.REGENT_BUILD_HOSTNAME ?? hostname(),
  };
}

function registerMethodCatchAlls(app: FastifyInstance): void {
  for (const [url, served] of Object.entries(API_ROUTES)) {
    const rest = METHODS.filter((m) => !served.includes(m));
    app.route({ method: [...rest], url, config: { handler: 'catchall' }, handler: (_req, reply) => reply.code(405).send() });
  }
  for (const [url, served] of Object.entries(OTHER_ROUTES)) {
    const rest = METHODS.filter((m) => !served.includes(m));
    app.route({
      method: [...rest],
      url,
      config: { handler: 'catchall' },
      handler: (_req, reply) => reply.code(405).header('allow', served.join(', ')).header('content-type', 'text/plain; charset=utf-8').send('Method Not Allowed\n'),
    });
  }
}

function indexPage(ctx: ServerContext): string {
  return [
    '<!DOCTYPE html>',
    '<html><head><title>Regent</title></head><body>',
    `<pre>Regent ${ctx.build.version} (Rego policy engine, OPA-compatible REST API)</pre>`,
    '<form method="GET" action="/v1/query"><textarea name="q" rows="6" cols="80"></textarea><br><input type="submit" value="Query"></form>',
    '</body></html>',
    '',
  ].join('\n');
}

export async function buildServer(opts: BuildServerOptions = {}): Promise<FastifyInstance> {
  const config = opts.config ?? loadConfig({ version: opts.build?.version ?? 'dev' });
  const engine = new Engine(opts);
  const host = new EngineHost(engine, config.labels, configuredPlugins(config));
  const ctx: RegentHandle = {
    engine,
    host,
    config,
    limits: { gzipMaxLength: config.gzipMaxLength, maxDepth: opts.maxDepth ?? 1000 },
    build: buildInfo(config.labels.version ?? 'dev', opts.build),
    prometheus: createRegistry(),
    attachPlugins(plugins) {
      ctx.plugins = plugins;
    },
  };

  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: config.maxLength, exposeHeadRoutes: false, return503OnClosing: false });
  app.decorate('regent', ctx);
  app.decorate('regentEncoding', { gzipMinLength: config.gzipMinLength, gzipLevel: config.gzipLevel });
  app.removeAllContentTypeParsers();
  // Every body is kept as raw bytes (server/api/body.ts decodes it). The common
  // types are named too: Fastify caches named types, while the '*' fallback
  // re-parses the Content-Type header on every request.
  const rawBody = (_req: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void): void => done(null, body);
  app.addContentTypeParser(['application/json', 'application/x-yaml', 'application/yaml', 'text/plain'], { parseAs: 'buffer' }, rawBody);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, rawBody);
  app.setErrorHandler((err, req, reply) => sendAnyError(req, reply, err));
  app.addHook('onClose', async () => {
    await ctx.plugins?.stop();
    await engine.close();
  });

  const authentication = opts.authentication ?? 'off';
  if (opts.authorization === 'basic') {
    app.addHook('preHandler', (req: FastifyRequest, _reply: FastifyReply, done) => {
      try {
        authorize(ctx, req, authentication);
        done();
      } catch (e) {
        done(e as Error);
      }
    });
  }
  const durations = registerMetricsRoutes(app, ctx);
  app.setNotFoundHandler((req, reply) => {
    durations(404, 'catchall', req.method, reply.elapsedTime / 1000);
    return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('404 page not found\n');
  });
  registerDataRoutes(app, ctx);
  registerPolicyRoutes(app, ctx);
  registerQueryRoutes(app, ctx);
  registerCompileFilterRoutes(app, ctx);
  registerHealthRoutes(app, ctx);
  registerConfigRoutes(app, ctx);
  registerStatusRoutes(app, ctx);
  app.get('/', { config: { handler: 'index' } }, (_req, reply) => reply.header('content-type', 'text/html; charset=utf-8').send(indexPage(ctx)));
  registerMethodCatchAlls(app);
  return app;
}
