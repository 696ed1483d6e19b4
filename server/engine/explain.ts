// Explanations (`explain=notes|fails|full|debug`): the one place that turns an
// evaluation into trace events (engine-api.md §2.4, §4.9). The compiled closures
// emit no trace events, so the explanation is the empty event list; the tracing
// interpreter plugs in here and nowhere else.
import type { CompiledPolicy } from '../../compiler/index.js';
import type { Value } from '../../runtime/index.js';
import type { ExplainMode } from './protocol.js';

export interface ExplainRequest {
  policy: CompiledPolicy;
  query: string;
  input: Value | undefined;
  data: Value;
  mode: ExplainMode;
}

/** Trace events for one evaluation, in OPA's raw (machine) form. */
export function explainEvaluation(request: ExplainRequest): unknown[] {
  void request;
  return [];
}
