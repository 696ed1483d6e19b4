// The control plane server: `createControlPlane(options)` builds the Fastify app
// (routes/*.ts), opens storage (SQLite under the data directory by default, or
// PostgreSQL from `database.sql`), and returns start/stop. `start()` listens,
// then migrates, loads the configuration's definitions and starts the build
// scheduler; /health answers 500 until then and 200 `{}` after. `stop()` closes
// the server, the scheduler and the database, so tests and the CLI end cleanly.
// Each instance has its own metrics Registry (metrics.ts), served at /metrics and
// fed by the /v1 routes, the default scheduler's builds and git syncs, and the
// SQL storage's statements. Regent extensions: engine status reports at
// `/status` (and `/v1/status`), the fleet view, rebuild and stacks preview
// (routes/fleet.ts, routes/preview.ts, fleet/).
import { chmod, lstat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';
import { hasPrincipal, principalOf, setPrincipal, TokenTable } from './auth.js';
import { applyConfig } from './config/apply.js';
import { Forbidden, InvalidParameter, NotFound, NotReady } from './errors.js';
import { DEFAULT_FLEET_CONFIG } from './fleet/config.js';
import { ControlPlaneMetrics, instrumentRoutes, registerMetricsRoute } from './metrics.js';
import { registerBundleRoutes } from './routes/bundles.js';
import { notifier, sendError, type RouteContext } from './routes/common.js';
import { engineMayCall, registerFleetRoutes, registerStatusReportRoutes } from './routes/fleet.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerPreviewRoutes } from './routes/preview.js';
import { registerSecretRoutes } from './routes/secrets.js';
import { registerSourceRoutes } from './routes/sources.js';
import { registerStackRoutes } from './routes/stacks.js';
import { registerUiRoutes } from './routes/ui.js';
import { Scheduler } from './scheduler.js';
import { openPostgresStorage } from './storage/postgres.js';
import { SqlStorage } from './storage/repository.js';
import { openSqliteStorage } from './storage/sqlite.js';
import type { Storage } from './storage/storage.js';
import type { BuildScheduler, ControlPlaneConfig } from './types.js';

export interface ControlPlaneOptions {
  config: ControlPlaneConfig;
  /** Working directory; the default SQLite database is `<dataDir>/sqlite.db`. Default `data`. */
  dataDir?: string;
  /** Listen address (default 127.0.0.1:8282; port 0 picks a free port). */
  host?: string;
  port?: number;
  /** Listen on this unix domain socket instead (made world-writable, 0666, as the reference does). */
  socketPath?: string;
  /** Logger; default: pino JSON on stderr at `logLevel`. */
  logger?: Logger;
  /** Where the default logger writes (tests capture it). */
  logStream?: DestinationStream;
  logLevel?: string;
  /** Storage to use instead of the one the configuration selects. */
  store?: Storage;
  /** Build scheduler notified of changes; default: the builder's Scheduler; `null` runs without builds. */
  scheduler?: BuildScheduler | null;
  /** Largest accepted request body in bytes (default 16 MiB). */
  bodyLimit?: number;
}

export interface ControlPlane {
  app: FastifyInstance;
  store: Storage;
  /** Listen, migrate, load config, start the scheduler; resolves with the bound URL. */
  start(): Promise<string>;
  stop(): Promise<void>;
  readonly ready: boolean;
  /** This instance's Prometheus metrics (served at `{api_prefix}/metrics`). */
  readonly metrics: ControlPlaneMetrics;
}

/** Open the storage a configuration selects (SQLite under dataDir by default). */
export function openStorage(config: ControlPlaneConfig, dataDir: string): Storage {
  const db = config.database;
  if (db?.driver === 'postgres') return openPostgresStorage({ dsn: db.dsn! });
  const file = db?.dsn ? db.dsn.replace(/^file:/, '').replace(/\?.*$/, '') : join(dataDir, 'sqlite.db');
  return openSqliteStorage(file);
}

/** The builder side's scheduler, logging through the control plane's logger and feeding its metrics. */
function defaultScheduler(store: Storage, dataDir: string, logger: Logger, metrics: ControlPlaneMetrics): BuildScheduler {
  const log = logger.child({ component: 'builder' });
  return new Scheduler({
    store,
    dataDir,
    cwd: process.cwd(),
    log: (level, msg, fields) => log[level](fields ?? {}, msg),
    gitSync: metrics,
    onBuild: (o) => metrics.bundleBuilt(o.bundle_name, o.status, o.durationMs / 1000),
  });
}

/** Request body parser: any content type, JSON text, empty body = undefined. */
function parseBody(_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') return done(null, undefined);
  try {
    done(null, JSON.parse(text));
  } catch {
    // The parser's message quotes the body, which may hold a secret: report the kind only.
    done(new InvalidParameter('request body is not valid JSON'));
  }
}

export function createControlPlane(options: ControlPlaneOptions): ControlPlane {
  const { config } = options;
  const logger =
    options.logger ??
    pino(
      {
        level: options.logLevel ?? 'info',
        redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
      },
      options.logStream ?? pino.destination(2),
    );
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 16 * 1024 * 1024,
    routerOptions: { maxParamLength: 4096 },
    forceCloseConnections: true,
  });
  const metrics = new ControlPlaneMetrics(config.metrics);
  const store = options.store ?? openStorage(config, options.dataDir ?? 'data');
  const sqlDb = store instanceof SqlStorage ? store.db : undefined;
  if (sqlDb && metrics.queryObserver) sqlDb.observer = metrics.queryObserver;
  const scheduler =
    options.scheduler === undefined ? defaultScheduler(store, options.dataDir ?? 'data', logger, metrics) : (options.scheduler ?? undefined);
  const tokens = new TokenTable(config.tokens);
  let ready = false;
  let started = false;

  const ctx: RouteContext = { store, notify: notifier(scheduler, app.log), isReady: () => ready, log: app.log };
  const fleet = config.fleet ?? DEFAULT_FLEET_CONFIG;
  metrics.watchFleet(() => store.fleet.counts(new Date(Date.now() - fleet.staleAfterMs).toISOString()));
  const rebuild = (bundle: string): void => {
    if (scheduler?.rebuildNow) scheduler.rebuildNow(bundle);
    else ctx.notify([bundle]);
  };
  const authenticate = async (req: FastifyRequest): Promise<void> => {
    if (!ready) throw new NotReady();
    setPrincipal(req, tokens.authenticate(req.headers.authorization));
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, parseBody);
  app.setErrorHandler((err, req, reply) => sendError(req, reply, err));
  app.setNotFoundHandler((req, reply) => sendError(req, reply, new NotFound(`no route ${req.method} ${req.url.split('?')[0]}`)));

  app.register(
    async (api) => {
      registerHealthRoutes(api, ctx);
      registerMetricsRoute(api, metrics);
      registerUiRoutes(api); // the dashboard's static files under /ui (no auth; its API calls carry the key)
      // Engine status reports at OPA's path (`<service url>/status`), outside /v1.
      await api.register(async (reports) => {
        reports.addHook('onRequest', async (req: FastifyRequest) => authenticate(req));
        registerStatusReportRoutes(reports, ctx, fleet, '');
      });
      await api.register(async (v1) => {
        instrumentRoutes(v1, metrics, hasPrincipal);
        v1.addHook('onRequest', async (req: FastifyRequest, _reply: FastifyReply) => {
          await authenticate(req);
          // The `engine` role may only send status reports (and ask who it is).
          const url = req.routeOptions.url?.slice(config.apiPrefix.length);
          if (principalOf(req).role === 'engine' && !engineMayCall(url)) throw new Forbidden();
        });
        registerBundleRoutes(v1, ctx, rebuild);
        registerSourceRoutes(v1, ctx);
        registerStackRoutes(v1, ctx);
        registerSecretRoutes(v1, ctx);
        registerStatusReportRoutes(v1, ctx, fleet, '/v1');
        registerFleetRoutes(v1, ctx, fleet);
        registerPreviewRoutes(v1, ctx);
      });
    },
    { prefix: config.apiPrefix },
  );

  return {
    app,
    store,
    get ready() {
      return ready;
    },
    metrics,
    async start() {
      if (started) throw new Error('control plane already started');
      started = true;
      let url: string;
      if (options.socketPath) {
        const path = options.socketPath;
        if ((await lstat(path).catch(() => undefined))?.isSocket()) await unlink(path);
        url = await app.listen({ path });
        await chmod(path, 0o666);
      } else {
        url = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 8282 });
      }
      try {
        await store.migrate();
        await applyConfig(store, config);
        scheduler?.start();
      } catch (e) {
        await app.close();
        await store.close();
        throw e;
      }
      ready = true;
      app.log.info({ url }, 'control plane ready');
      return url;
    },
    async stop() {
      ready = false;
      await app.close();
      if (scheduler) await scheduler.stop();
      if (sqlDb && sqlDb.observer === metrics.queryObserver) sqlDb.observer = undefined;
      await store.close();
    },
  };
}
