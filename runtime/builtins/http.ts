// Builtins of the `http` family: http.send. Requests run synchronously through a
// worker thread (http-sync.ts). Results are cached per query (ctx.cache) and, when
// the request asks for `cache`/`force_cache`, in an in-process inter-query cache
// honouring Cache-Control/Expires or force_cache_duration_seconds. Errors follow
// OPA: raised by default, or returned as {status_code: 0, error: {...}} when
// raise_error is false.
import { loadYAML } from '../value/yaml-lib.js';
import type { BuiltinContext, BuiltinDef } from './types.js';
import { T } from './types.js';
import { BuiltinError, HaltError, OperandTypeError, operandError } from './errors.js';
import { fromJS, formatTerm, RObject, toJSONText, type Value } from '../value/index.js';
import { goJSONParse } from './jwt-json.js';
import { buildRequest, validateRequestKeys } from './http-request.js';
import { sendSync, type WireResponse } from './http-sync.js';

const CACHEABLE = new Set([200, 203, 204, 206, 300, 301, 404, 405, 410, 414, 501]);

/** An error that OPA would return as *url.Error (network failure). */
class NetworkError extends BuiltinError {}

interface InterEntry {
  expiresAt: number;
  resp: WireResponse;
}
const interQueryCache = new Map<string, InterEntry>();
const MAX_INTER_ENTRIES = 1000;

/** Clear the inter-query cache (tests). */
export function clearHttpSendCache(): void {
  interQueryCache.clear();
}

function boolField(req: RObject, key: string): boolean {
  const v = req.getStr(key);
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new BuiltinError(`invalid value for "${key}" field`);
  return v;
}

/** getKeyFromRequest: the request minus cache_ignored_headers, as cache key text. */
function cacheKey(req: RObject): string {
  const key = req.clone();
  const ignored = req.getStr('cache_ignored_headers');
  const headers = req.getStr('headers');
  if (Array.isArray(ignored) && headers instanceof RObject) {
    const h = headers.clone();
    for (const name of ignored) h.delete(name);
    key.set('headers', h);
  }
  key.set('cache_ignored_headers', null);
  return toJSONText(key);
}

function isJSONType(ct: string): boolean {
  const mt = ct.split(';')[0]!.trim().toLowerCase();
  const [a, b] = mt.split('/');
  return a === 'application' && b !== undefined && (b === 'json' || b.endsWith('+json'));
}

/** prepareASTResult. */
function formatResponse(r: WireResponse, forceJSON: boolean, forceYAML: boolean): Value {
  const raw = Buffer.from(r.body, 'base64').toString('utf8');
  const ct = r.headers['content-type']?.[0] ?? '';
  let body: Value = null;
  try {
    if (forceJSON || isJSONType(ct)) body = goJSONParse(raw);
    else if (forceYAML || ct.includes('application/yaml') || ct.includes('application/x-yaml')) body = fromJS(loadYAML(raw));
  } catch {
    body = null;
  }
  const headers = new RObject();
  for (const [k, vs] of Object.entries(r.headers)) headers.set(k.toLowerCase(), vs);
  return RObject.fromEntries([
    ['status', r.status],
    ['status_code', r.statusCode],
    ['body', body],
    ['raw_body', raw],
    ['headers', headers],
  ]);
}

function parseCacheControl(h: Record<string, string[]>): Map<string, string> {
  const out = new Map<string, string>();
  for (let part of (h['cache-control']?.[0] ?? '').split(',')) {
    part = part.trim();
    if (!part) continue;
    const eq = part.split('=');
    if (eq.length === 1) out.set(part, '');
    else if (eq.length === 2) out.set(eq[0]!.trim(), eq[1]!);
  }
  return out;
}

/** Expiry (ms since epoch) of a response, or undefined when it must not be stored. */
function expiry(r: WireResponse, forceSeconds: number | undefined, nowMs: number): number | undefined {
  if (!CACHEABLE.has(r.statusCode)) return undefined;
  if (forceSeconds !== undefined && forceSeconds > 0) return nowMs + forceSeconds * 1000;
  const cc = parseCacheControl(r.headers);
  if (cc.has('no-store')) return undefined;
  const maxAge = cc.get('max-age');
  if (maxAge !== undefined && /^\d+$/.test(maxAge)) {
    const date = Date.parse(r.headers.date?.[0] ?? '');
    if (Number.isNaN(date)) return undefined;
    return date + Math.min(Number(maxAge), 2 ** 31 - 1) * 1000;
  }
  const exp = Date.parse(r.headers.expires?.[0] ?? '');
  return Number.isNaN(exp) ? 0 : exp;
}

function forceCacheSeconds(req: RObject): number {
  const v = req.getStr('force_cache_duration_seconds');
  if (v === undefined) throw new BuiltinError("'force_cache' set but 'force_cache_duration_seconds' parameter is missing");
  const s = formatTerm(v);
  if (!/^[+-]?\d+$/.test(s) || Math.abs(Number(s)) > 2 ** 31 - 1) throw new BuiltinError(`strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`);
  return Number(s);
}

function execute(req: RObject, ctx: BuiltinContext): WireResponse {
  const spec = buildRequest(req);
  const per = spec.timeoutMs > 0 ? spec.timeoutMs : 60_000;
  let waitMs = (per + 1000) * (spec.maxRetries + 1) + Math.min(60_000 * spec.maxRetries, 100 * (2 ** (spec.maxRetries + 1) - 1) * 1.2);
  let byDeadline = false;
  if (ctx.deadline !== undefined && ctx.deadline - Date.now() < waitMs) {
    waitMs = Math.max(0, ctx.deadline - Date.now());
    byDeadline = true;
  }
  const result = sendSync(spec, waitMs);
  if (result === undefined) {
    if (byDeadline) throw new HaltError('http.send: timed out (context deadline exceeded)', { raw: true });
    throw new NetworkError(`${spec.method.charAt(0)}${spec.method.slice(1).toLowerCase()} ${spec.url}: request timed out`);
  }
  if (!result.ok) {
    if (result.error.internal) throw new BuiltinError(result.error.message);
    const e = new NetworkError(result.error.message);
    if (result.error.timeout) (e as NetworkError & { timeoutText?: string }).timeoutText = `${result.error.op} ${result.error.url}: request timed out`;
    throw e;
  }
  return result;
}

function getResponse(req: RObject, ctx: BuiltinContext): Value {
  const key = cacheKey(req);
  const intraKey = `http.send\u0000${key}`;
  const cached = ctx.cache.get(intraKey) as { value?: Value; error?: BuiltinError } | undefined;
  if (cached) {
    if (cached.error) throw cached.error;
    return cached.value!;
  }
  try {
    const useCache = boolField(req, 'cache');
    const force = boolField(req, 'force_cache');
    const forceSeconds = force ? forceCacheSeconds(req) : undefined;
    const forceJSON = boolField(req, 'force_json_decode');
    const forceYAML = boolField(req, 'force_yaml_decode');
    const nowMs = Number(ctx.nowNs / 1_000_000n);
    if (useCache || force) {
      const hit = interQueryCache.get(key);
      if (hit && nowMs < hit.expiresAt) {
        const value = formatResponse(hit.resp, forceJSON, forceYAML);
        ctx.cache.set(intraKey, { value });
        return value;
      }
      interQueryCache.delete(key);
    }
    const resp = execute(req, ctx);
    const value = formatResponse(resp, forceJSON, forceYAML);
    if (CACHEABLE.has(resp.statusCode)) ctx.cache.set(intraKey, { value });
    if (useCache || force) {
      const exp = expiry(resp, forceSeconds, nowMs);
      if (exp !== undefined && exp > nowMs) {
        if (interQueryCache.size >= MAX_INTER_ENTRIES) interQueryCache.delete(interQueryCache.keys().next().value!);
        interQueryCache.set(key, { expiresAt: exp, resp });
      }
    }
    return value;
  } catch (e) {
    if (e instanceof BuiltinError && !(e instanceof HaltError)) ctx.cache.set(intraKey, { error: e });
    throw e;
  }
}

function errorResult(code: string, message: string): Value {
  return RObject.fromEntries([
    ['status_code', 0],
    ['error', RObject.fromEntries([['code', code], ['message', message]])],
  ]);
}

function httpSend(args: Value[], ctx: BuiltinContext): Value {
  const req = args[0]!;
  if (!(req instanceof RObject)) throw operandError(1, 'object', req);
  const re = req.getStr('raise_error');
  if (re !== undefined && typeof re !== 'boolean') throw new BuiltinError('invalid value for raise_error field');
  const raiseError = re !== false;
  try {
    validateRequestKeys(req, 1);
  } catch (e) {
    if (raiseError || !(e instanceof OperandTypeError)) throw e;
    return errorResult('eval_http_send_internal_error', `eval_type_error: http.send: ${e.message}`);
  }
  try {
    return getResponse(req, ctx);
  } catch (e) {
    if (!(e instanceof BuiltinError) || e instanceof HaltError) throw e;
    if (!raiseError) {
      const code = e instanceof NetworkError ? 'eval_http_send_network_error' : 'eval_http_send_internal_error';
      return errorResult(code, e.message);
    }
    const timeoutText = (e as NetworkError & { timeoutText?: string }).timeoutText;
    if (timeoutText) throw new BuiltinError(timeoutText);
    throw e;
  }
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'http.send',
      args: [T.objectOf(T.string, T.any)],
      result: T.objectOf(T.any, T.any),
      nondeterministic: true,
      categories: ['http'],
      description: 'Returns a HTTP response to the given HTTP request.',
    },
    impl: httpSend,
  },
];
