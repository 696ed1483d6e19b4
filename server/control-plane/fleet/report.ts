// An engine's status report, as OPA's status plugin sends it (UpdateRequestV1:
// `labels`, `bundles`, the deprecated single `bundle`, `discovery`,
// `decision_logs`, `metrics`, `plugins`), and what the fleet view keeps of it.
//
// parseStatusReport checks the shape the fleet view relies on (400 otherwise):
// a JSON object whose `labels` map has a non-empty string `id`; `bundles` and
// `plugins` objects of objects; bundle fields strings where OPA writes strings.
// Unknown keys are kept (the raw report is stored as received) and ignored.
// summarize() turns it into the per-engine summary the list shows: the active
// revision and activation time per bundle, the plugin states and one line per
// error. A bundle counts as served only once `last_successful_activation` is a
// real time: OPA writes Go's zero time (0001-01-01T00:00:00Z) before that.
import { InvalidParameter } from '../errors.js';

/** OPA's bundle status fields the fleet view reads (others are kept in the raw report). */
export interface ReportedBundle {
  name?: string;
  active_revision?: string;
  last_successful_download?: string;
  last_successful_activation?: string;
  last_request?: string;
  code?: string;
  message?: string;
  errors?: unknown[];
  http_code?: number | string;
}

export interface ReportedPlugin {
  state: string;
  message?: string;
}

export interface StatusReport {
  labels: Record<string, string> & { id: string };
  bundles?: Record<string, ReportedBundle>;
  bundle?: ReportedBundle;
  discovery?: ReportedBundle;
  decision_logs?: { code?: string; message?: string; [k: string]: unknown };
  plugins?: Record<string, ReportedPlugin>;
  metrics?: unknown;
  [k: string]: unknown;
}

/** What the fleet list shows of a bundle. */
export interface BundleSummary {
  active_revision: string;
  last_successful_activation: string;
  code?: string;
  message?: string;
  errors?: unknown[];
}

/** The per-engine summary stored beside the raw report (what `/v1/fleet` lists). */
export interface ReportSummary {
  bundles: Record<string, BundleSummary>;
  plugins: Record<string, ReportedPlugin>;
  errors: string[];
}

/** How deeply a report may nest (OPA's own reports nest about 8 levels). */
export const MAX_REPORT_DEPTH = 64;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function depthOf(v: unknown, limit: number): number {
  // Iterative, so a hostile report cannot overflow the stack.
  let max = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const c of Array.isArray(x) ? x : Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}

const BUNDLE_STRING_FIELDS = [
  'name',
  'active_revision',
  'last_successful_download',
  'last_successful_activation',
  'last_request',
  'code',
  'message',
] as const;

function checkBundle(b: unknown, where: string): ReportedBundle {
  if (!isObject(b)) throw new InvalidParameter(`status report: ${where} must be an object`);
  for (const f of BUNDLE_STRING_FIELDS) {
    if (b[f] !== undefined && b[f] !== null && typeof b[f] !== 'string') {
      throw new InvalidParameter(`status report: ${where}.${f} must be a string`);
    }
  }
  if (b.errors !== undefined && b.errors !== null && !Array.isArray(b.errors)) {
    throw new InvalidParameter(`status report: ${where}.errors must be an array`);
  }
  return b as ReportedBundle;
}

/** Validate a request body as a status report; throws InvalidParameter (400) naming the field. */
export function parseStatusReport(body: unknown): StatusReport {
  if (!isObject(body)) throw new InvalidParameter('status report: body must be a JSON object');
  if (depthOf(body, MAX_REPORT_DEPTH) > MAX_REPORT_DEPTH) {
    throw new InvalidParameter(`status report: nested deeper than ${MAX_REPORT_DEPTH} levels`);
  }
  const labels = body.labels;
  if (!isObject(labels)) throw new InvalidParameter('status report: labels must be an object');
  for (const [k, v] of Object.entries(labels)) {
    if (typeof v !== 'string') throw new InvalidParameter(`status report: labels.${k} must be a string`);
  }
  if (typeof labels.id !== 'string' || labels.id === '') {
    throw new InvalidParameter('status report: labels.id must be a non-empty string (the engine id)');
  }
  if (labels.id.length > 256) throw new InvalidParameter('status report: labels.id is longer than 256 characters');
  if (body.bundles !== undefined && body.bundles !== null) {
    if (!isObject(body.bundles)) throw new InvalidParameter('status report: bundles must be an object');
    for (const [name, b] of Object.entries(body.bundles)) checkBundle(b, `bundles.${name}`);
  }
  for (const key of ['bundle', 'discovery'] as const) {
    if (body[key] !== undefined && body[key] !== null) checkBundle(body[key], key);
  }
  if (body.plugins !== undefined && body.plugins !== null) {
    if (!isObject(body.plugins)) throw new InvalidParameter('status report: plugins must be an object');
    for (const [name, p] of Object.entries(body.plugins)) {
      if (!isObject(p) || typeof p.state !== 'string') {
        throw new InvalidParameter(`status report: plugins.${name} must be an object with a string state`);
      }
    }
  }
  if (body.decision_logs !== undefined && body.decision_logs !== null && !isObject(body.decision_logs)) {
    throw new InvalidParameter('status report: decision_logs must be an object');
  }
  return body as StatusReport;
}

/** Whether an RFC 3339 time is a real one (not absent, not Go's zero time). */
export function isRealTime(t: string | undefined): t is string {
  return typeof t === 'string' && t !== '' && !t.startsWith('0001-01-01');
}

/** The bundles of a report by name, the deprecated single `bundle` included. */
export function reportedBundles(r: StatusReport): [string, ReportedBundle][] {
  const out = new Map<string, ReportedBundle>(Object.entries(r.bundles ?? {}));
  if (r.bundle) out.set(r.bundle.name ?? 'bundle', r.bundle);
  return [...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** (bundle, revision) pairs the engine serves: activated at least once. */
export function servedRevisions(r: StatusReport): { bundle: string; revision: string }[] {
  return reportedBundles(r)
    .filter(([, b]) => isRealTime(b.last_successful_activation))
    .map(([bundle, b]) => ({ bundle, revision: b.active_revision ?? '' }));
}

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (isObject(e)) {
    // OPA's ast.Error: {code, message, location: {file, row, col}} → `file:row:col: code: message`.
    const l = isObject(e.location) ? e.location : {};
    const loc = [l.file, l.row, l.col].filter((x) => x !== undefined && x !== null && x !== '' && x !== 0).join(':');
    const parts = [loc, typeof e.code === 'string' ? e.code : '', typeof e.message === 'string' ? e.message : ''];
    const text = parts.filter((p) => p !== '').join(': ');
    if (text !== '') return text;
  }
  return JSON.stringify(e);
}

/** The per-engine summary: bundles, plugins and one line per error. */
export function summarize(r: StatusReport): ReportSummary {
  const bundles: Record<string, BundleSummary> = {};
  const errors: string[] = [];
  for (const [name, b] of reportedBundles(r)) {
    const s: BundleSummary = {
      active_revision: b.active_revision ?? '',
      last_successful_activation: isRealTime(b.last_successful_activation) ? b.last_successful_activation : '',
    };
    if (b.code) s.code = b.code;
    if (b.message) s.message = b.message;
    if (b.errors && b.errors.length > 0) s.errors = b.errors;
    bundles[name] = s;
    if (b.code || b.message) errors.push(`bundle ${name}: ${[b.code, b.message].filter(Boolean).join(': ')}`);
    for (const e of b.errors ?? []) errors.push(`bundle ${name}: ${errorText(e)}`);
  }
  if (r.discovery && (r.discovery.code || r.discovery.message)) {
    errors.push(`discovery: ${[r.discovery.code, r.discovery.message].filter(Boolean).join(': ')}`);
  }
  const dl = r.decision_logs;
  if (dl && (dl.code || dl.message)) errors.push(`decision_logs: ${[dl.code, dl.message].filter(Boolean).join(': ')}`);
  const plugins: Record<string, ReportedPlugin> = {};
  for (const [name, p] of Object.entries(r.plugins ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    plugins[name] = p.message ? { state: p.state, message: p.message } : { state: p.state };
    if (p.state === 'ERROR' || p.state === 'WARN') {
      errors.push(`plugin ${name}: ${p.state}${p.message ? `: ${p.message}` : ''}`);
    }
  }
  return { bundles, plugins, errors };
}
