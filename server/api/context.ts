// What every resource handler shares: the engine and plugin host, the active
// configuration, body limits, build information, the decision logger seam and the
// request timer that produces OPA's inline `metrics`.
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { parseJSON } from '../../runtime/index.js';
import type { ServerConfig } from '../config/config.js';
import type { Engine } from '../engine/engine.js';
import type { EngineHost } from '../engine/host.js';
import type { EvalOutcome, InputPayload } from '../engine/protocol.js';
import type { DecisionEvent } from '../plugins/contract.js';
import type { BodyLimits, ParsedDocument } from './body.js';

export interface BuildInfo {
  version: string;
  build_commit: string;
  build_timestamp: string;
  build_hostname: string;
}

/** The running plugins, as the API uses them (server/plugins startPlugins() result). */
export interface AttachedPlugins {
  logDecision(event: DecisionEvent): void | Promise<void>;
  /** The status document the status plugin reports. */
  status(): unknown;
  stop(): Promise<void>;
}

export interface ServerContext {
  engine: Engine;
  host: EngineHost;
  config: ServerConfig;
  limits: BodyLimits;
  build: BuildInfo;
  prometheus: Registry;
  /** Set once the plugins have started (server/main.ts). */
  plugins?: AttachedPlugins;
}

/** Per-request metrics: OPA's timer_*_ns and counter_* names, keys sorted on output. */
export class RequestMetrics {
  private readonly start = process.hrtime.bigint();
  private readonly values: Record<string, number>[] = [];

  /** Add timers; the object is read only when a snapshot is taken (most requests never ask). */
  add(values: Record<string, number>): void {
    this.values.push(values);
  }

  /** Add an evaluation's timers and its cache-hit counter. */
  addOutcome(outcome: EvalOutcome): void {
    this.values.push(outcome.timers);
    if (outcome.cacheHit) this.values.push({ counter_server_query_cache_hit: 1 });
  }

  /** The metrics object, with timer_server_handler_ns measured up to now. */
  snapshot(): Record<string, number> {
    const all: Record<string, number> = Object.assign({}, ...this.values, { timer_server_handler_ns: Number(process.hrtime.bigint() - this.start) });
    return Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

/** An input document as the evaluator takes it. */
export function inputPayload(doc: ParsedDocument | undefined): { payload?: InputPayload; exact?: import('../../runtime/index.js').Value } {
  if (doc === undefined) return {};
  if (doc.exact !== undefined) return { exact: doc.exact };
  return { payload: { kind: 'js', js: doc.js } };
}

export function newDecisionId(ctx: ServerContext): string | undefined {
  return ctx.config.decisionLogs ? randomUUID() : undefined;
}

export interface DecisionRecord {
  decisionId: string | undefined;
  path?: string;
  query?: string;
  input?: ParsedDocument;
  resultText?: string;
  error?: unknown;
  metrics?: Record<string, number>;
}

/** Send a decision log event, when decision logging is on and a logger is attached. */
export function logDecision(ctx: ServerContext, req: FastifyRequest, d: DecisionRecord): void {
  if (!ctx.config.decisionLogs || !ctx.plugins || d.decisionId === undefined) return;
  const bundles = Object.fromEntries(ctx.host.activeBundles().map((b) => [b.name, { revision: b.revision ?? '' }]));
  const event: DecisionEvent = {
    labels: ctx.host.labels(),
    decision_id: d.decisionId,
    ...(d.path !== undefined ? { path: d.path } : {}),
    ...(d.query !== undefined ? { query: d.query } : {}),
    ...(d.input !== undefined ? { input: d.input.exact ?? parseJSON(JSON.stringify(d.input.js)) } : {}),
    ...(d.resultText !== undefined ? { result: parseJSON(d.resultText) } : {}),
    ...(Object.keys(bundles).length ? { bundles } : {}),
    requested_by: `${req.ip}:${req.socket.remotePort ?? 0}`,
    timestamp: new Date().toISOString(),
    ...(d.metrics ? { metrics: d.metrics } : {}),
    ...(d.error !== undefined ? { error: d.error } : {}),
  };
  void Promise.resolve(ctx.plugins.logDecision(event)).catch(() => undefined);
}

/** The provenance object of Data API responses. */
export function provenance(ctx: ServerContext): Record<string, unknown> {
  const active = ctx.host.activeBundles();
  const bundles = Object.fromEntries(active.map((b) => [b.name, { revision: b.revision ?? '' }]));
  return { ...(active.length ? { bundles } : {}), ...ctx.build };
}
