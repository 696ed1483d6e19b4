// buildServer(): the OPA-compatible REST API as a Fastify instance, ready to
// `listen` (or `inject` in tests). It wires the engine (store, policies, worker
// pool), the plugin host, the configuration, authentication/authorization, the
// routes of server/api and OPA's routing rules: 405 for wrong methods (with Allow
// outside the API prefixes), 404 for unknown paths, both as `{code, message}`.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { ServerContext, BuildInfo, AttachedPlugins } from './api/context.js';
import { registerConfigRoutes } from './api/config.js';
import { registerDataRoutes } from './api/data.js';
import { FastPath } from './api/fast-path.js';
import { registerHealthRoutes } from './api/health.js';
import { createRegistry, registerMetricsRoutes } from './api/metrics.js';
import { registerPolicyRoutes } from './api/policies.js';
import { registerQueryRoutes } from './api/query.js';
import { registerCompileFilterRoutes } from './api/compile-filters.js';
import { registerCompileRoutes } from './api/compile.js';
import { checkContentLength, expectsBody, markReadByAuthorizer, readBody } from './api/body-reader.js';
import { badRequest } from './api/errors.js';
import { MISSING_HOST_MESSAGE, handleClientError, sendMethodNotAllowed, sendNotFound } from './api/http-errors.js';
import { configPathSegments } from './api/params.js';
import { sendAnyError } from './api/reply.js';
import { registerStatusRoutes } from './api/status.js';
import { authorize } from './auth/authorize.js';
import { policyReadsBody } from './auth/body-use.js';
import type { AuthenticationMode, AuthorizationMode } from './auth/identity.js';
import { configuredPlugins, loadConfig, type ServerConfig } from './config/config.js';
import { Engine, type EngineOptions } from './engine/engine.js';
import { EngineHost } from './engine/host.js';
import { fromJS, runtimeInfo, setRuntimeInfo } from '../runtime/index.js';

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
  /**
   * The `opa.runtime()` document (default: built from the configuration, the
   * environment and the version, as OPA's runtime does); embedders replace it as
   * with OPA's `server.WithRuntime`.
   */
  runtime?: Record<string, unknown>;
  /**
   * Answer the hot Data API requests ahead of Fastify (api/fast-path.ts; default
   * true). Off, every request takes the Fastify route (the tests compare the two).
   */
  fastPath?: boolean;
}

export interface RegentHandle extends ServerContext {
  /** Attach the running plugins (decision logs, status document). */
  attachPlugins(plugins: AttachedPlugins): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    regent: RegentHandle;
    regentEncoding: { gzipMinLength: number; gzipLevel: number };
    /** The request listener of every HTTP server of the app: the fast path, then Fastify's routing. */
    regentListener: (req: IncomingMessage, res: ServerResponse) => void;
    /** The fast path (undefined when built with `fastPath: false`). */
    regentFastPath: FastPath | undefined;
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
  '/v1/compile': ['POST'],
  '/v1/compile/*': ['GET', 'POST'],
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
    app.route({ method: [...rest], url, config: { handler: 'catchall' }, handler: (_req, reply) => sendMethodNotAllowed(reply) });
  }
  for (const [url, served] of Object.entries(OTHER_ROUTES)) {
    const rest = METHODS.filter((m) => !served.includes(m));
    app.route({
      method: [...rest],
      url,
      config: { handler: 'catchall' },
      handler: (_req, reply) => sendMethodNotAllowed(reply, served),
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
  const build = buildInfo(config.labels.version ?? 'dev', opts.build);
  // opa.runtime() on this thread; the workers the engine starts get the same document (pool.ts)
  setRuntimeInfo(opts.runtime !== undefined ? fromJS(opts.runtime) : runtimeInfo({ config: config.raw ?? {}, version: build.version, commit: build.build_commit, authorizationEnabled: opts.authorization === 'basic' }));
  const engine = new Engine(opts.backend === undefined && config.backend !== undefined ? { ...opts, backend: config.backend } : opts);
  const host = new EngineHost(engine, config.labels, configuredPlugins(config));
  const ctx: RegentHandle = {
    engine,
    host,
    config,
    limits: { gzipMaxLength: config.gzipMaxLength, maxDepth: opts.maxDepth ?? 1000 },
    build,
    prometheus: createRegistry(),
    attachPlugins(plugins) {
      ctx.plugins = plugins;
    },
  };

  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: config.maxLength,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    // Errors of the HTTP layer get the {code, message} envelope too (api/http-errors.ts).
    clientErrorHandler: handleClientError,
    frameworkErrors: (err, req, reply) => sendAnyError(req, reply, err),
  });
  app.decorate('regent', ctx);
  app.decorate('regentEncoding', { gzipMinLength: config.gzipMinLength, gzipLevel: config.gzipLevel });
  app.removeAllContentTypeParsers();
  // Every body is read as a stream into raw bytes under the decoding limits (gzip
  // inflated on the fly, JSON depth checked as it arrives: api/body-reader.ts);
  // server/api/body.ts decodes it. The common types are named too: Fastify caches
  // named types, while the '*' fallback re-parses the Content-Type header on every request.
  const readLimits = { maxLength: config.maxLength, gzipMaxLength: config.gzipMaxLength, maxDepth: ctx.limits.maxDepth };
  const streamBody = (req: FastifyRequest, payload: NodeJS.ReadableStream): Promise<Buffer> => readBody(req, payload as import('node:stream').Readable, readLimits);
  app.addContentTypeParser(['application/json', 'application/x-yaml', 'application/yaml', 'text/plain'], streamBody);
  app.addContentTypeParser('*', streamBody);
  // OPA's outermost handler: a declared body above server.decoding.max_length is refused before anything else.
  app.addHook('onRequest', (req, reply, done) => {
    const tooLarge = checkContentLength(req, config.maxLength);
    if (tooLarge) return void sendAnyError(req, reply, tooLarge);
    if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) return void sendAnyError(req, reply, badRequest(MISSING_HOST_MESSAGE));
    done();
  });
  app.setErrorHandler((err, req, reply) => sendAnyError(req, reply, err));
  app.addHook('onClose', async () => {
    await ctx.plugins?.stop();
    await engine.close();
  });

  const authentication = opts.authentication ?? 'off';
  if (opts.authorization === 'basic') {
    // Authorized before the body is read, unless the request carries a body the
    // policy may look at (input.body: POSTs to /, /v0/data, /v1/data, and only
    // when some module refers to the body; auth/body-use.ts): those are authorized
    // once the body has been read under its limits.
    const afterBody = new WeakSet<FastifyRequest>();
    const authzDecision = configPathSegments(config.defaultAuthorizationDecision);
    const check = (req: FastifyRequest, done: (err?: Error) => void): void => {
      try {
        authorize(ctx, req, authentication);
        done();
      } catch (e) {
        done(e as Error);
      }
    };
    app.addHook('onRequest', (req: FastifyRequest, _reply: FastifyReply, done) => {
      if (expectsBody(req.method, req.url) && policyReadsBody(engine, authzDecision)) {
        afterBody.add(req);
        markReadByAuthorizer(req);
        return done();
      }
      check(req, done);
    });
    app.addHook('preHandler', (req: FastifyRequest, _reply: FastifyReply, done) => {
      if (afterBody.has(req)) check(req, done);
      else done();
    });
  }
  const durations = registerMetricsRoutes(app, ctx);
  app.setNotFoundHandler((req, reply) => {
    durations(404, 'catchall', req.method, reply.elapsedTime / 1000);
    return sendNotFound(reply);
  });
  registerDataRoutes(app, ctx);
  registerPolicyRoutes(app, ctx);
  registerQueryRoutes(app, ctx);
  registerCompileFilterRoutes(app, ctx);
  registerCompileRoutes(app, ctx);
  registerHealthRoutes(app, ctx);
  registerConfigRoutes(app, ctx);
  registerStatusRoutes(app, ctx);
  app.get('/', { config: { handler: 'index' } }, (_req, reply) => reply.header('content-type', 'text/html; charset=utf-8').send(indexPage(ctx)));
  registerMethodCatchAlls(app);
  installFastPath(app, ctx, opts, durations.route('v1/data'));
  return app;
}

/** The lifecycle hooks buildServer itself adds at the root: with any other, the fast path stays off. */
const OWN_HOOKS: Record<string, number> = { onRequest: 1 };
const LIFECYCLE_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError', 'onTimeout', 'onRequestAbort'];

/** Whether the root's request hooks are exactly buildServer's (Fastify keeps them under its `fastify.hooks` symbol). */
function onlyOwnHooks(app: FastifyInstance): boolean {
  const key = Object.getOwnPropertySymbols(app).find((s) => s.description === 'fastify.hooks');
  const hooks = key === undefined ? undefined : ((app as unknown as Record<symbol, Record<string, unknown[]> | undefined>)[key]);
  if (hooks === undefined) return false;
  return LIFECYCLE_HOOKS.every((name) => Array.isArray(hooks[name]) && hooks[name]!.length === (OWN_HOOKS[name] ?? 0));
}

/**
 * The fast path as the app server's request listener (and `app.regentListener` for
 * listeners.ts's servers). It switches on when the app is ready and only when no
 * authorization, request logger or foreign hook is in place, and off when the app closes.
 */
function installFastPath(app: FastifyInstance, ctx: ServerContext, opts: BuildServerOptions, observe: (code: number, method: string, seconds: number) => void): void {
  const routing = app.routing;
  if (opts.fastPath === false) {
    app.decorate('regentListener', routing);
    app.decorate('regentFastPath', undefined);
    return;
  }
  const fast = new FastPath(app, ctx, ctx.config.maxLength, observe);
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (!fast.enabled || !fast.handle(req, res)) routing(req, res);
  };
  app.decorate('regentListener', listener);
  app.decorate('regentFastPath', fast);
  const server = app.server;
  const current = server.listeners('request');
  if (current.length === 1 && current[0] === routing) {
    server.removeListener('request', routing);
    server.on('request', listener);
  }
  app.addHook('onReady', (done) => {
    fast.enabled = opts.authorization !== 'basic' && !opts.logger && onlyOwnHooks(app);
    done();
  });
  app.addHook('preClose', (done) => {
    fast.enabled = false;
    done();
  });
}
