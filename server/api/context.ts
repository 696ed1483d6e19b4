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
import { RENDERED, type RenderedEvent, type RenderedFields } from '../plugins/event-json.js';
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

/** The cache-hit counter, shared (never changed). */
const CACHE_HIT: Record<string, number> = Object.freeze({ counter_server_query_cache_hit: 1 });

/** A sorted key order for snapshotText: the timers' keys, plus the handler timer and the cache-hit counter. */
interface KeyOrder {
  keys: string[];
  sorted: string[];
  /** `"key":` (with a leading comma after the first). */
  prefixes: string[];
}

function sortedOrder(keys: string[], hit: boolean): KeyOrder {
  const sorted = [...keys, 'timer_server_handler_ns', ...(hit ? ['counter_server_query_cache_hit'] : [])].sort();
  return { keys, sorted, prefixes: sorted.map((k, i) => (i ? ',' : '') + JSON.stringify(k) + ':') };
}

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

let lastOrder: KeyOrder = sortedOrder([], false);
let lastOrderHit: KeyOrder = sortedOrder([], true);

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
    if (outcome.cacheHit) this.values.push(CACHE_HIT);
  }

  /**
   * The snapshot's JSON text (what JSON.stringify(snapshot()) gives), written
   * without the intermediate objects; the sorted key order is reused while the
   * timers' keys repeat (decision logging takes one per logged request).
   */
  snapshotText(): string {
    const values = this.values;
    // The common case: the evaluation's timers, perhaps the cache-hit counter.
    if (values.length === 0 || values.length > 2 || (values.length === 2 && values[1] !== CACHE_HIT)) return JSON.stringify(this.snapshot());
    const timers = values[0]!;
    if ('timer_server_handler_ns' in timers || 'counter_server_query_cache_hit' in timers) return JSON.stringify(this.snapshot());
    const keys = Object.keys(timers);
    const hit = values.length === 2;
    let order = hit ? lastOrderHit : lastOrder;
    if (!sameKeys(order.keys, keys)) {
      order = sortedOrder(keys, hit);
      if (hit) lastOrderHit = order;
      else lastOrder = order;
    }
    const handler = Math.round((performance.now() - this.start) * 1e6);
    let out = '{';
    for (let i = 0; i < order.sorted.length; i++) {
      const k = order.sorted[i]!;
      const v = k === 'timer_server_handler_ns' ? handler : k === 'counter_server_query_cache_hit' ? 1 : timers[k]!;
      out += order.prefixes[i]! + (Number.isFinite(v) ? String(v) : 'null');
    }
    return out + '}';
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
  /** The request's metrics, snapshot when the event is made (as text for the server's own plugins). */
  requestMetrics?: RequestMetrics;
  custom?: Record<string, unknown>;
}

/** The labels object shared by a server's rendered events, and its JSON text (made once per host). */
const sharedLabels = new WeakMap<EngineHost, { labels: Record<string, string>; text: string }>();

function labelsOf(host: EngineHost): { labels: Record<string, string>; text: string } {
  let shared = sharedLabels.get(host);
  if (shared === undefined) {
    const labels = Object.freeze(host.labels());
    sharedLabels.set(host, (shared = { labels, text: JSON.stringify(labels) }));
  }
  return shared;
}

let lastStampMs = 0;
let lastStamp = '';

/** The ISO time of now, made once per millisecond (toISOString costs more than the rest of an event's plain fields). */
function timestamp(): string {
  const now = Date.now();
  if (now !== lastStampMs) {
    lastStampMs = now;
    lastStamp = new Date(now).toISOString();
  }
  return lastStamp;
}

/** Send a decision log event, when decision logging is on and a logger is attached. */
export function logDecision(ctx: ServerContext, req: FastifyRequest, d: DecisionRecord): void {
  if (!ctx.config.decisionLogs || !ctx.plugins || d.decisionId === undefined) return;
  // With the server's own plugins, input, result, metrics and labels become values only
  // when something reads them (a mask or drop policy): the uploaded JSON is written from
  // the parsed request, the result text, the metrics text and one shared labels text
  // (event-json.ts RENDERED, withValues). One object shape for every rendered event.
  const rendered = ctx.plugins.rendersEvents === true;
  const shared = rendered ? labelsOf(ctx.host) : undefined;
  const fields: RenderedFields | undefined = rendered
    ? { input: undefined, inputText: undefined, resultText: undefined, metricsText: undefined, labels: shared!.labels, labelsText: shared!.text }
    : undefined;
  // Built by assignment (not conditional spreads): this runs for every logged decision.
  const event: RenderedEvent = {
    labels: shared !== undefined ? shared.labels : ctx.host.labels(),
    decision_id: d.decisionId,
    requested_by: `${req.ip}:${req.socket.remotePort ?? 0}`,
    timestamp: timestamp(),
    [RENDERED]: fields,
  };
  if (d.path !== undefined) event.path = d.path;
  if (d.query !== undefined) event.query = d.query;
  const input = d.input;
  if (input !== undefined) {
    if (input.exact !== undefined) event.input = input.exact;
    else if (fields !== undefined) fields.input = input.js;
    else event.input = fromJS(input.js);
  } else if (d.inputValue !== undefined) event.input = d.inputValue;
  const resultText = d.resultText;
  if (resultText !== undefined) {
    if (fields !== undefined && d.resultIsValueText && !resultText.includes('\n')) fields.resultText = resultText;
    else event.result = parseJSON(resultText);
  }
  const active = ctx.host.activeBundles();
  if (active.length > 0) event.bundles = bundleRevisions(active);
  if (d.requestMetrics !== undefined) {
    if (fields !== undefined) fields.metricsText = d.requestMetrics.snapshotText();
    else event.metrics = d.requestMetrics.snapshot();
  } else if (d.metrics) event.metrics = d.metrics;
  if (d.error !== undefined) event.error = d.error;
  if (d.custom !== undefined) event.custom = d.custom;
  // The server's own plugin never rejects (it logs its own failures); a host-provided one might.
  const logged = ctx.plugins.logDecision(event);
  if (logged && !rendered) logged.catch(() => undefined);
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
