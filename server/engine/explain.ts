// Explanations (`explain=notes|fails|full|debug`): the one place that turns an
// evaluation into trace events (engine-api.md §2.4, §4.9; engine-behaviors.md §2.8).
// The compiled closures emit no events, so the query is re-run by the reference
// interpreter with tracing on; its events are filtered by mode and returned in
// OPA's raw form (lower-cased `op`), or as trace lines when `pretty` is set.
import { eventJSON, explain, prettyTrace, traceQuery, type CompiledPolicy, type TraceEvent } from '../../compiler/index.js';
import type { Value } from '../../runtime/index.js';
import type { ExplainMode } from './protocol.js';

export interface ExplainRequest {
  policy: CompiledPolicy;
  query: string;
  input: Value | undefined;
  data: Value;
  mode: ExplainMode;
  /** OPA returns trace strings instead of events when the request asks for `pretty`. */
  pretty?: boolean;
  strictBuiltinErrors?: boolean;
}

/** Trace events for one evaluation, in OPA's raw (machine) form or as pretty lines. */
export function explainEvaluation(request: ExplainRequest): unknown[] {
  const traced = traceQuery(request.policy, request.query, {
    input: request.input,
    data: request.data,
    strictBuiltinErrors: request.strictBuiltinErrors,
  });
  return renderExplanation(traced.events, request.mode, request.pretty);
}

/** Recorded events filtered by `explain=<mode>`, as events or (pretty) trace lines. Also used for partial evaluation. */
export function renderExplanation(all: TraceEvent[], mode: ExplainMode, pretty?: boolean): unknown[] {
  const events = explain(all, mode);
  if (pretty) return prettyTrace(events).split('\n').filter((l) => l.length > 0);
  return events.map(eventJSON);
}
