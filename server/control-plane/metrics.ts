// Prometheus metrics of the control plane, as the reference (OCP, namespace
// `ocp`) names them: request durations of the /v1 API, git syncs, bundle builds
// and database statements. Each control plane owns one prom-client Registry;
// `{api_prefix}/metrics` (any method, no authentication) renders it. The
// `metrics` configuration key switches everything (`enabled`), an area
// (`http`, `gitsync`, `worker`, `database`: `enabled`) or one metric
// (`enabled`, histogram `buckets_seconds`) off; all are on by default. As in the
// reference, a disabled counter also stops the duration histogram of its area
// from being recorded, and `/metrics` answers 200 even when nothing is enabled.
// Regent adds one gauge, `regent_fleet_engines{state="live"|"stale"}`: the
// engines that report status (fleet view), read from storage at each scrape
// (one COUNT statement); it appears once an engine has reported.
import type { FastifyInstance, FastifyRequest, onResponseHookHandler } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import { ConfigError } from './errors.js';
import { CounterFamily, HistogramFamily, renderRegistry, type CounterChild, type HistogramChild } from '../metrics/families.js';
import type { QueryObserver } from './storage/storage.js';

export interface MetricSetting {
  enabled?: boolean;
  buckets_seconds?: number[];
}

/** The `metrics` configuration key. */
export interface MetricsConfig {
  enabled?: boolean;
  http?: { enabled?: boolean; request_duration?: MetricSetting };
  gitsync?: { enabled?: boolean; git_sync_duration?: MetricSetting; git_sync_count?: MetricSetting };
  worker?: { enabled?: boolean; bundle_build_duration?: MetricSetting; bundle_build_count?: MetricSetting };
  database?: { enabled?: boolean; database_query_duration?: MetricSetting; database_query_count?: MetricSetting };
}

// The reference's default buckets, in seconds.
const HTTP_BUCKETS = [1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 0.01, 0.1, 1];
const GIT_SYNC_BUCKETS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.5, 2, 5, 10, 30, 60];
const BUNDLE_BUILD_BUCKETS = [0.1, 0.2, 0.5, 1, 1.5, 2, 5, 10, 30, 60];
const DATABASE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** First keywords that label database statements; anything else is `other`. */
const OPERATIONS = new Set(
  ['select', 'insert', 'update', 'delete', 'begin', 'commit', 'rollback', 'savepoint', 'release', 'pragma', 'create', 'alter', 'drop'],
);

/** The `operation` label of a statement: its first keyword, lower case, if known. */
export function databaseOperation(sql: string): string {
  const m = /^\s*(\S+)/.exec(sql);
  const op = m ? m[1]!.toLowerCase() : '';
  return OPERATIONS.has(op) ? op : 'other';
}

/** Reject histogram buckets that are not strictly increasing (the reference's client panics on them). */
export function validateMetricsConfig(cfg: MetricsConfig | undefined): void {
  for (const [area, settings] of Object.entries(cfg ?? {})) {
    if (typeof settings !== 'object' || settings === null) continue;
    for (const [metric, s] of Object.entries(settings as Record<string, MetricSetting | boolean>)) {
      const b = typeof s === 'object' && s !== null ? s.buckets_seconds : undefined;
      if (b?.some((v, i) => i > 0 && v <= b[i - 1]!)) {
        throw new ConfigError(`configuration error: metrics.${area}.${metric}.buckets_seconds must be in increasing order`);
      }
    }
  }
}

const on = (enabled: boolean | undefined): boolean => enabled !== false;

/** Records one response of a route: status code, method (when the route has several), seconds. */
export type RouteObserver = (code: number, method: string, seconds: number) => void;

interface QueryChildren {
  succeeded: CounterChild;
  failed: CounterChild;
  duration?: HistogramChild;
}

export class ControlPlaneMetrics {
  readonly registry = new Registry();
  private readonly httpDuration?: HistogramFamily;
  private readonly gitSyncCount?: CounterFamily;
  private readonly gitSyncDuration?: HistogramFamily;
  private readonly buildCount?: CounterFamily;
  private readonly buildDuration?: HistogramFamily;
  private readonly queryCount?: CounterFamily;
  private readonly queryDuration?: HistogramFamily;
  /** Children per statement text (statements are mostly constants), bounded. */
  private readonly queries = new Map<string, QueryChildren>();
  /** Told about every database statement; undefined when database metrics are off. */
  readonly queryObserver?: QueryObserver;
  private readonly enabled: boolean;

  constructor(cfg: MetricsConfig = {}) {
    this.enabled = on(cfg.enabled);
    if (!this.enabled) return;
    const r = this.registry;
    const counter = (name: string, help: string, labels: string[]): CounterFamily => new CounterFamily(name, help, labels, r);
    const histogram = (name: string, help: string, labels: string[], s: MetricSetting | undefined, defaults: number[]): HistogramFamily =>
      new HistogramFamily(name, help, labels, s?.buckets_seconds?.length ? s.buckets_seconds : defaults, r);
    const { http, gitsync: git, worker, database: db } = cfg;

    if (on(http?.enabled) && on(http?.request_duration?.enabled)) {
      const help = 'A histogram of duration for requests.';
      this.httpDuration = histogram('ocp_http_request_duration_seconds', help, ['code', 'handler', 'method'], http?.request_duration, HTTP_BUCKETS);
    }
    if (on(git?.enabled) && on(git?.git_sync_count?.enabled)) {
      this.gitSyncCount = counter('ocp_git_sync_count_total', 'Number of times a git sync has been performed and its state', ['source', 'repo', 'state']);
    }
    if (on(git?.enabled) && on(git?.git_sync_duration?.enabled)) {
      this.gitSyncDuration = histogram('ocp_git_sync_duration_seconds', 'Git sync duration in seconds', ['source', 'repo'], git?.git_sync_duration, GIT_SYNC_BUCKETS);
    }
    if (on(worker?.enabled) && on(worker?.bundle_build_count?.enabled)) {
      const help = 'Number of times a bundle build has been performed and its state';
      this.buildCount = counter('ocp_bundle_build_count_total', help, ['bundle', 'state']);
    }
    if (on(worker?.enabled) && on(worker?.bundle_build_duration?.enabled)) {
      const help = 'Bundle build duration in seconds';
      this.buildDuration = histogram('ocp_bundle_build_duration_seconds', help, ['bundle'], worker?.bundle_build_duration, BUNDLE_BUILD_BUCKETS);
    }
    if (on(db?.enabled) && on(db?.database_query_count?.enabled)) {
      this.queryCount = counter('ocp_database_query_count_total', 'Number of database queries performed and their outcome', ['operation', 'state']);
      if (on(db?.database_query_duration?.enabled)) {
        const help = 'Database query duration in seconds';
        this.queryDuration = histogram('ocp_database_query_duration_seconds', help, ['operation'], db?.database_query_duration, DATABASE_BUCKETS);
      }
      this.queryObserver = (sql, seconds) => {
        const c = this.queryChildren(sql);
        if (seconds === undefined) return c.failed.inc();
        c.succeeded.inc();
        c.duration?.observe(seconds);
      };
    }
  }

  /** An observer for one API route (`handler` is its pattern), or undefined when HTTP metrics are off. */
  routeObserver(handler: string, method?: string): RouteObserver | undefined {
    const family = this.httpDuration;
    if (!family) return undefined;
    const fixed = method?.toLowerCase();
    const byCode = new Map<number, HistogramChild>();
    return (code, m, seconds) => {
      if (fixed === undefined) return family.child(String(code), handler, m.toLowerCase()).observe(seconds);
      let child = byCode.get(code);
      if (child === undefined) byCode.set(code, (child = family.child(String(code), handler, fixed)));
      child.observe(seconds);
    };
  }

  /**
   * The fleet gauge (Regent extension): `regent_fleet_engines{state}` with the
   * live and stale engine counts that `read` returns at each scrape. No series
   * until an engine has reported; a failing read (storage not migrated yet)
   * keeps the last values.
   */
  watchFleet(read: () => Promise<{ engines: number; stale: number }>): void {
    if (!this.enabled) return;
    let seen = false;
    new Gauge({
      name: 'regent_fleet_engines',
      help: 'Engines that report status to the control plane, by state (stale: no report within fleet.stale_after).',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        let counts: { engines: number; stale: number };
        try {
          counts = await read();
        } catch {
          return;
        }
        if (counts.engines === 0 && !seen) return;
        seen = true;
        this.set({ state: 'live' }, counts.engines - counts.stale);
        this.set({ state: 'stale' }, counts.stale);
      },
    });
  }

  gitSyncSucceeded(source: string, repo: string, seconds: number): void {
    if (!this.gitSyncCount) return;
    this.gitSyncCount.child(source, repo, 'SUCCESS').inc();
    this.gitSyncDuration?.child(source, repo).observe(seconds);
  }

  gitSyncFailed(source: string, repo: string): void {
    this.gitSyncCount?.child(source, repo, 'FAILED').inc();
  }

  /** One finished build: its status (`SUCCESS`, `SYNC_FAILED`, ...) and, for successes, its duration. */
  bundleBuilt(bundle: string, state: string, seconds: number): void {
    if (!this.buildCount) return;
    this.buildCount.child(bundle, state).inc();
    if (state === 'SUCCESS') this.buildDuration?.child(bundle).observe(seconds);
  }

  private queryChildren(sql: string): QueryChildren {
    let c = this.queries.get(sql);
    if (c !== undefined) return c;
    const op = databaseOperation(sql);
    c = { succeeded: this.queryCount!.child(op, 'SUCCESS'), failed: this.queryCount!.child(op, 'FAILED'), duration: this.queryDuration?.child(op) };
    if (this.queries.size < 512) this.queries.set(sql, c);
    return c;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition of every family that has samples. */
  render(): Promise<string> {
    return renderRegistry(this.registry);
  }
}

/** `/metrics` in `app` (the api_prefix scope): any method, no authentication, not instrumented. */
export function registerMetricsRoute(app: FastifyInstance, metrics: ControlPlaneMetrics): void {
  app.all('/metrics', async (_req, reply) => {
    const text = await metrics.render();
    return reply.code(200).header('content-type', metrics.contentType).send(text);
  });
}

/**
 * The reference's `handler` label: the route pattern with the API prefix, in
 * Go ServeMux syntax (`/p/v1/bundles/{bundle}`, `/p/v1/sources/{source}/data/{path...}`).
 */
export function handlerLabel(url: string): string {
  const pattern = url.replace(/\/:([A-Za-z0-9_]+)/g, '/{$1}').replace(/\/\*$/, '/{path...}');
  return /\/v1\/sources\/\{source\}\/data$/.test(pattern) ? pattern + '/{path...}' : pattern;
}

/**
 * Observe the durations of the routes registered in `app` after this call (the
 * /v1 scope). As in the reference, only requests that passed authentication count.
 */
export function instrumentRoutes(app: FastifyInstance, metrics: ControlPlaneMetrics, authenticated: (req: FastifyRequest) => boolean): void {
  app.addHook('onRoute', (route) => {
    const observer = metrics.routeObserver(handlerLabel(route.url), typeof route.method === 'string' ? route.method : undefined);
    if (!observer) return;
    const observe: onResponseHookHandler = (req, reply, done) => {
      if (authenticated(req)) observer(reply.statusCode, req.method, reply.elapsedTime / 1000);
      done();
    };
    const prev = route.onResponse;
    route.onResponse = prev === undefined ? [observe] : [...(Array.isArray(prev) ? prev : [prev]), observe];
  });
}
