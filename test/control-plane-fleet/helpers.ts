// Helpers of the fleet tests: a control plane (test/control-plane/helpers.ts's
// startServer) whose configuration adds `engine` tokens and a `fleet` section,
// and status reports shaped as OPA's status plugin sends them
// (UpdateRequestV1: labels, bundles.<name> with Go's zero time before the first
// activation, plugins.<name>.state, metrics).
import { parseConfigText } from '../../server/control-plane/config/load.js';
import type { ControlPlaneOptions } from '../../server/control-plane/index.js';
import { startServer, TOKENS_YAML, type Backend, type TestServer } from '../control-plane/helpers.js';

export const ENGINE_KEYS = { engine: 'key-engine-5eed', engine2: 'key-engine2-beef' } as const;

/** Token lines continuing the `tokens:` map of TOKENS_YAML. */
const ENGINE_TOKENS_YAML = `
  engine: {api_key: ${ENGINE_KEYS.engine}, scopes: [{role: engine}]}
  engine2: {api_key: ${ENGINE_KEYS.engine2}, scopes: [{role: engine}]}
`;

/** A control plane with the usual test tokens, two engine tokens and `configYaml`. */
export function startFleetServer(backend: Backend, configYaml: string, extra: Partial<ControlPlaneOptions> = {}): Promise<TestServer> {
  const config = parseConfigText(TOKENS_YAML + ENGINE_TOKENS_YAML + configYaml);
  return startServer(backend, '', { config, ...extra });
}

/** Go's zero time, which OPA writes for events that never happened. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

export interface BundleState {
  revision?: string;
  /** Activated at least once (default true). */
  activated?: boolean;
  code?: string;
  message?: string;
  errors?: string[];
}

/** An OPA status report for engine `id` serving `bundles`. */
export function opaReport(
  id: string,
  bundles: Record<string, BundleState>,
  plugins: Record<string, { state: string; message?: string }> = { bundle: { state: 'OK' }, status: { state: 'OK' } },
  labels: Record<string, string> = {},
): Record<string, unknown> {
  const now = new Date().toISOString();
  const out: Record<string, unknown> = {};
  for (const [name, b] of Object.entries(bundles)) {
    const activated = b.activated ?? true;
    out[name] = {
      name,
      active_revision: activated ? (b.revision ?? '') : '',
      last_successful_download: activated ? now : ZERO_TIME,
      last_successful_activation: activated ? now : ZERO_TIME,
      last_request: now,
      last_successful_request: now,
      ...(b.code ? { code: b.code } : {}),
      ...(b.message ? { message: b.message } : {}),
      ...(b.errors ? { errors: b.errors } : {}),
      metrics: { timer_rego_load_bundles_ns: 12345 },
    };
  }
  return {
    labels: { id, version: '1.4.2', ...labels },
    bundles: out,
    plugins,
    metrics: { prometheus: { http_request_duration_seconds: { name: 'http_request_duration_seconds', type: 'HISTOGRAM', metric: [] } } },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll `check` every 100 ms until it returns a value, or fail after `ms`. */
export async function waitFor<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await sleep(100);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
