// http.send request handling: validation of the request object (allowed and
// required keys, field types) and translation into a plain request spec that the
// worker thread can execute. Messages follow OPA's topdown/http.go.
import { readFileSync } from 'node:fs';
import { BuiltinError, OperandTypeError } from './errors.js';
import { formatTerm, isNumber, RObject, RSet, typeName, type Value } from '../value/index.js';
import { goJSONMarshal } from './jwt-json.js';

export const ALLOWED_KEYS = [
  'method',
  'url',
  'body',
  'enable_redirect',
  'force_json_decode',
  'force_yaml_decode',
  'headers',
  'raw_body',
  'tls_use_system_certs',
  'tls_ca_cert',
  'tls_ca_cert_file',
  'tls_ca_cert_env_variable',
  'tls_client_cert',
  'tls_client_cert_file',
  'tls_client_cert_env_variable',
  'tls_client_key',
  'tls_client_key_file',
  'tls_client_key_env_variable',
  'tls_insecure_skip_verify',
  'tls_server_name',
  'timeout',
  'cache',
  'force_cache',
  'force_cache_duration_seconds',
  'raise_error',
  'caching_mode',
  'max_retry_attempts',
  'cache_ignored_headers',
];
const ALLOWED = new Set(ALLOWED_KEYS);

/** validateHTTPRequestOperand: unknown keys, then missing method/url. */
export function validateRequestKeys(obj: RObject, pos: number): void {
  const invalid = obj.keys().filter((k) => typeof k !== 'string' || !ALLOWED.has(k));
  if (invalid.length) throw new OperandTypeError(`operand ${pos} invalid request parameters(s): ${formatTerm(RSet.of(invalid))}`);
  const missing = ['method', 'url'].filter((k) => !obj.has(k));
  if (missing.length) throw new OperandTypeError(`operand ${pos} missing required request parameters(s): ${formatTerm(RSet.of(missing))}`);
}

/** A request ready for the worker: everything is plain data. */
export interface RequestSpec {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  enableRedirect: boolean;
  maxRetries: number;
  tls: { ca?: string[]; cert?: string; key?: string; rejectUnauthorized: boolean; servername?: string; useSystem: boolean };
  socketPath?: string;
}

const STRING_FIELDS = new Set([
  'method',
  'url',
  'raw_body',
  'tls_ca_cert',
  'tls_ca_cert_file',
  'tls_ca_cert_env_variable',
  'tls_client_cert',
  'tls_client_cert_file',
  'tls_client_cert_env_variable',
  'tls_client_key',
  'tls_client_key_file',
  'tls_client_key_env_variable',
  'tls_server_name',
]);

function parseBool(v: Value): boolean {
  if (typeof v === 'boolean') return v;
  throw new BuiltinError(`strconv.ParseBool: parsing ${JSON.stringify(formatTerm(v))}: invalid syntax`);
}

const UNITS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration, in nanoseconds. */
export function parseGoDuration(s: string): number {
  const m = s.match(/^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/);
  if (!m) throw new Error(`time: invalid duration ${JSON.stringify(s)}`);
  let total = 0;
  for (const part of s.replace(/^[+-]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(part[1]) * UNITS[part[2]!]!;
  return m[1] === '-' ? -total : total;
}

/** parseTimeout: number of ns, or a string of ns or a Go duration. Result in ms. */
function parseTimeout(v: Value): number {
  if (isNumber(v)) {
    const n = typeof v === 'number' ? v : v.dec.toNumber();
    if (!Number.isInteger(n)) throw new BuiltinError(`invalid timeout number value ${formatTerm(v)}, must be int64`);
    return n / 1e6;
  }
  if (typeof v === 'string') {
    if (/^[+-]?\d+$/.test(v)) return Number(v) / 1e6;
    try {
      return parseGoDuration(v) / 1e6;
    } catch (e) {
      throw new BuiltinError(`invalid timeout value ${formatTerm(v)}: ${(e as Error).message}`);
    }
  }
  throw new OperandTypeError(`operand 1 'timeout' must be one of {string, number} but got ${typeName(v)}`);
}

/** Go's http.CanonicalHeaderKey. */
export function canonicalHeaderKey(k: string): string {
  if (!/^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/.test(k)) return k;
  return k.toLowerCase().replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());
}

/** getNumberValFromReqObj for max_retry_attempts. */
export function retryCount(req: RObject): number {
  const v = req.getStr('max_retry_attempts');
  if (v === undefined) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  throw new BuiltinError(`invalid value ${formatTerm(v)} for field "max_retry_attempts"`);
}

function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new BuiltinError(`open ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
}

/** createHTTPRequest: turn the request object into a RequestSpec. */
export function buildRequest(obj: RObject, defaultTimeoutMs = 5000): RequestSpec {
  const spec: RequestSpec = {
    method: '',
    url: '',
    headers: {},
    body: '',
    timeoutMs: defaultTimeoutMs,
    enableRedirect: false,
    maxRetries: retryCount(obj),
    tls: { rejectUnauthorized: true, useSystem: false },
  };
  let body: string | undefined;
  let rawBody: string | undefined;
  let custom: RObject | undefined;
  const ca: string[] = [];
  let cert: string | undefined;
  let key: string | undefined;
  for (const [kv, v] of obj.entries()) {
    const k = kv as string;
    const s = typeof v === 'string' ? v.replace(/^"+|"+$/g, '') : '';
    if (typeof v !== 'string' && STRING_FIELDS.has(k)) throw new BuiltinError(`"${k}" must be a string`);
    switch (k) {
      case 'method':
        spec.method = s.toUpperCase();
        break;
      case 'url':
        spec.url = s;
        break;
      case 'enable_redirect':
        spec.enableRedirect = parseBool(v);
        break;
      case 'body':
        body = goJSONMarshal(v);
        break;
      case 'raw_body':
        rawBody = s;
        break;
      case 'tls_use_system_certs':
        spec.tls.useSystem = parseBool(v);
        break;
      case 'tls_ca_cert':
        ca.push(s.replace(/\\n/g, '\n'));
        break;
      case 'tls_ca_cert_file':
        ca.push(readFile(s));
        break;
      case 'tls_ca_cert_env_variable':
        ca.push(process.env[s] ?? '');
        break;
      case 'tls_client_cert':
        cert = s;
        break;
      case 'tls_client_cert_file':
        cert = readFile(s);
        break;
      case 'tls_client_cert_env_variable':
        cert = process.env[s] ?? '';
        break;
      case 'tls_client_key':
        key = s;
        break;
      case 'tls_client_key_file':
        key = readFile(s);
        break;
      case 'tls_client_key_env_variable':
        key = process.env[s] ?? '';
        break;
      case 'tls_server_name':
        spec.tls.servername = s;
        break;
      case 'headers':
        if (!(v instanceof RObject)) throw new BuiltinError('invalid type for headers key');
        custom = v;
        break;
      case 'tls_insecure_skip_verify':
        spec.tls.rejectUnauthorized = !parseBool(v);
        break;
      case 'timeout':
        spec.timeoutMs = parseTimeout(v);
        break;
      default:
        break;
    }
  }
  if (ca.length) spec.tls.ca = ca;
  if (cert && key) {
    spec.tls.cert = cert;
    spec.tls.key = key;
  }
  if (custom) {
    for (const [hk, hv] of custom.entries()) {
      if (typeof hv !== 'string') throw new BuiltinError(`invalid type for headers value ${JSON.stringify(formatTerm(hv))}`);
      spec.headers[canonicalHeaderKey(String(hk))] = hv;
    }
    if (spec.headers['User-Agent'] === undefined) spec.headers['User-Agent'] = 'Open Policy Agent/regent';
    if (spec.headers.Host !== undefined && spec.tls.servername === undefined) spec.tls.servername = spec.headers.Host;
  }
  spec.body = rawBody ?? body ?? '';
  const unix = spec.url.match(/^unix:\/\/([^/?#]*)([^?#]*)\?(.*)$/);
  if (unix) {
    const params = new URLSearchParams(unix[3]);
    const socket = params.get('socket');
    if (socket) {
      spec.socketPath = socket;
      params.delete('socket');
      const q = params.toString();
      spec.url = `http://${unix[1] || 'localhost'}${unix[2]}${q ? '?' + q : ''}`;
    }
  }
  return spec;
}
