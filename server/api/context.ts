// What every resource handler shares: the engine and plugin host, the active
// configuration, body limits, build information, the decision logger seam and the
// request timer that produces OPA's inline `metrics`.
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { fromJS, parseJSON } from '../../runtime/index.js';
import type { ServerConfig } from '../config/config.js';
import type { Engine } from '../engine/engine.js';
import type { EngineHost } from '../engine/host.js';
import type { EvalOutcome, InputPayload } from '../engine/protocol.js';
import type { DecisionEvent } from '../plugins/contract.js';
import { RENDERED, type RenderedEvent } from '../plugins/event-json.js';
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
  /** The plugin takes events whose input/result are rendered (event-json.ts RENDERED); others get Rego values. */
  readonly rendersEvents?: boolean;
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
  /** performance.now() at the start (ms, sub-µs resolution): no BigInt per request. */
  private readonly start = performance.now();
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

  /** The metrics object, with timer_server_handler_ns measured up to now (keys sorted). */
  snapshot(): Record<string, number> {
    const all: Record<string, number> = {};
    for (const values of this.values) for (const k in values) all[k] = values[k]!;
    all.timer_server_handler_ns = Math.round((performance.now() - this.start) * 1e6);
    const out: Record<string, number> = {};
    for (const k of Object.keys(all).sort()) out[k] = all[k]!;
    return out;
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
  /** The input as a Rego value, when the handler has no parsed document (data filters). */
  inputValue?: import('../../runtime/index.js').Value;
  resultText?: string;
  /** resultText is toJSONText of the result value (the Data API): compact, it is the event's `result` text as is. */
  resultIsValueText?: boolean;
  error?: unknown;
  metrics?: Record<string, number>;
  custom?: Record<string, unknown>;
}

/** Send a decision log event, when decision logging is on and a logger is attached. */
export function logDecision(ctx: ServerContext, req: FastifyRequest, d: DecisionRecord): void {
  if (!ctx.config.decisionLogs || !ctx.plugins || d.decisionId === undefined) return;
  // Built by assignment (not conditional spreads): this runs for every logged decision.
  const event: RenderedEvent = {
    labels: ctx.host.labels(),
    decision_id: d.decisionId,
    requested_by: `${req.ip}:${req.socket.remotePort ?? 0}`,
    timestamp: new Date().toISOString(),
    [RENDERED]: undefined,
  };
  if (d.path !== undefined) event.path = d.path;
  if (d.query !== undefined) event.query = d.query;
  // With the server's own plugins, input and result become Rego values only when
  // something reads them (a mask or drop policy): the uploaded JSON is written from
  // the parsed request and the result text (event-json.ts RENDERED, withValues).
  const rendered = ctx.plugins.rendersEvents === true;
  const input = d.input;
  if (input !== undefined) {
    if (input.exact !== undefined) event.input = input.exact;
    else if (rendered) event[RENDERED] = { input: input.js };
    else event.input = fromJS(input.js);
  } else if (d.inputValue !== undefined) event.input = d.inputValue;
  const resultText = d.resultText;
  if (resultText !== undefined) {
    if (rendered && d.resultIsValueText && !resultText.includes('\n')) (event[RENDERED] ??= {}).resultText = resultText;
    else event.result = parseJSON(resultText);
  }
  const active = ctx.host.activeBundles();
  if (active.length > 0) event.bundles = bundleRevisions(active);
  if (d.metrics) event.metrics = d.metrics;
  if (d.error !== undefined) event.error = d.error;
  if (d.custom !== undefined) event.custom = d.custom;
  // The plugin never rejects (it logs its own failures); a host-provided one might.
  const logged = ctx.plugins.logDecision(event);
  if (logged) logged.catch(() => undefined);
}

/** `{<name>: {revision}}` of the active bundles (decision logs and provenance). */
function bundleRevisions(active: readonly { name: string; revision?: string | undefined }[]): Record<string, { revision: string }> {
  const out: Record<string, { revision: string }> = {};
  for (const b of active) out[b.name] = { revision: b.revision ?? '' };
  return out;
}

/** The provenance object of Data API responses. */
export function provenance(ctx: ServerContext): Record<string, unknown> {
  const active = ctx.host.activeBundles();
  // A legacy single `bundle` config: OPA reports its revision as a top-level `revision` (omitted when empty) instead of `bundles`.
  const legacy = ctx.config.document.bundle as { name?: unknown } | undefined | null;
  if (legacy && typeof legacy === 'object') {
    const revision = active.find((b) => b.name === legacy.name)?.revision;
    return { ...(revision ? { revision } : {}), ...ctx.build };
  }
  return { ...(active.length ? { bundles: bundleRevisions(active) } : {}), ...ctx.build };
}
