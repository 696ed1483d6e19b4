// The value `opa.runtime()` returns, as OPA builds it (runtime/info): the active
// configuration when the process was started with one (`config`), every
// environment variable (`env`; a variable without `=` maps to null), the engine's
// `version` and `commit`, and whether authorization is on and the known-schema
// check skipped. The CLI installs it for `eval`, `test` and the REPL; the server
// installs it, with its configuration, on the main thread and in every worker.
import { RObject } from '../value/collections.js';
import { fromJS } from '../value/json.js';
import type { Value } from '../value/value.js';

export interface RuntimeInfoOptions {
  /** The configuration document as loaded (file and `--set` overrides); absent in `eval`. */
  config?: unknown;
  version: string;
  commit?: string;
  authorizationEnabled?: boolean;
  skipKnownSchemaCheck?: boolean;
  /** The environment (default: process.env). */
  env?: Record<string, string | undefined>;
}

/** The runtime document for `opa.runtime()`. */
export function runtimeInfo(opts: RuntimeInfoOptions): Value {
  const o = new RObject();
  if (opts.config !== undefined) o.set('config', fromJS(opts.config));
  const env = new RObject();
  for (const [k, v] of Object.entries(opts.env ?? process.env)) env.set(k, v ?? null);
  o.set('env', env);
  o.set('version', opts.version);
  o.set('commit', opts.commit ?? '');
  o.set('authorization_enabled', opts.authorizationEnabled ?? false);
  o.set('skip_known_schema_check', opts.skipKnownSchemaCheck ?? false);
  return o;
}

let processRuntime: Value = new RObject();

/** Install the document every later evaluation in this thread sees as `opa.runtime()`. */
export function setRuntimeInfo(value: Value): void {
  processRuntime = value;
}

/** The installed runtime document (an empty object until one is installed). */
export function currentRuntimeInfo(): Value {
  return processRuntime;
}
