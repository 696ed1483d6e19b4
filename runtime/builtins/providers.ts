// Builtins of the `providers` family: providers.aws.sign_req, which signs an
// http.send request object with AWS Signature Version 4 (HMAC-SHA256 through
// node:crypto), following OPA's internal/providers/aws signer.
import { createHash, createHmac } from 'node:crypto';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { asObject } from './args.js';
import { OperandTypeError, operandError } from './errors.js';
import { formatTerm, isNumber, RObject, RSet, type Value } from '../value/index.js';
import { goJSONMarshal } from './jwt-json.js';
import { validateRequestKeys } from './http-request.js';

const REQUIRED = ['aws_access_key', 'aws_region', 'aws_secret_access_key', 'aws_service'];
const IGNORED_HEADERS = new Set(['authorization', 'user-agent', 'x-amzn-trace-id']);

const str = (v: Value | undefined): string => (typeof v === 'string' ? v : '');
const setText = (names: string[]): string => formatTerm(RSet.of(names));

const sha256Hex = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const hmac = (key: Buffer | string, msg: string): Buffer => createHmac('sha256', key).update(msg, 'utf8').digest();

/** Go's url.URL Host / EscapedPath / RawQuery for the canonical request. */
function urlParts(raw: string): { host: string; path: string; query: string } {
  const m = raw.match(/^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?/);
  if (!m) return { host: '', path: '', query: '' };
  const path = m[3] ?? '';
  // EscapedPath: keep valid escapes, escape what Go would.
  const escaped = path.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join(''),
  );
  return { host: m[2] ?? '', path: escaped, query: m[4] ?? '' };
}

export interface SigV4Input {
  headers: Map<string, string>;
  method: string;
  url: string;
  body: Buffer;
  service: string;
  accessKey: string;
  secretKey: string;
  region: string;
  sessionToken: string;
  timeNs: bigint;
  disablePayloadSigning: boolean;
}

function amzDates(ns: bigint): [string, string] {
  const ms = Number(ns / 1000000n) - (ns < 0n && ns % 1000000n !== 0n ? 1 : 0);
  const iso = new Date(ms).toISOString(); // 2015-12-28T14:08:25.000Z
  const date = iso.slice(0, 10).replace(/-/g, '');
  const time = iso.slice(11, 19).replace(/:/g, '');
  return [date, `${date}T${time}Z`];
}

/** AWS SigV4: returns the Authorization header and the AWS headers to set. */
export function signV4(inp: SigV4Input): { authorization: string; awsHeaders: Map<string, string> } {
  const payloadHash = inp.disablePayloadSigning ? 'UNSIGNED-PAYLOAD' : sha256Hex(inp.body);
  const [dateNow, isoNow] = amzDates(inp.timeNs);
  const { host, path, query } = urlParts(inp.url);
  const aws = new Map<string, string>([
    ['host', host],
    ['x-amz-date', isoNow],
  ]);
  if (inp.service === 's3' || inp.service === 'glacier' || inp.disablePayloadSigning) aws.set('x-amz-content-sha256', payloadHash);
  if (inp.sessionToken !== '') aws.set('x-amz-security-token', inp.sessionToken);
  const toSign = new Map(aws);
  for (const [k, v] of inp.headers) {
    const lk = k.toLowerCase();
    if (!IGNORED_HEADERS.has(lk)) toSign.set(lk, v);
  }
  const keys = [...toSign.keys()].sort();
  let canonical = `${inp.method}\n${path}\n${query}\n`;
  for (const k of keys) canonical += `${k}:${toSign.get(k)}\n`;
  canonical += '\n';
  const signedHeaders = keys.join(';');
  canonical += `${signedHeaders}\n${payloadHash}`;
  const scope = `${dateNow}/${inp.region}/${inp.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${isoNow}\n${scope}\n${sha256Hex(canonical)}`;
  let key = hmac(`AWS4${inp.secretKey}`, dateNow);
  key = hmac(key, inp.region);
  key = hmac(key, inp.service);
  key = hmac(key, 'aws4_request');
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  const authorization = `AWS4-HMAC-SHA256 Credential=${inp.accessKey}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`;
  return { authorization, awsHeaders: aws };
}

function signReq(args: Value[]): Value {
  const req = asObject(args[0]!, 1);
  const cfg = asObject(args[1]!, 1);
  const missing = REQUIRED.filter((k) => !cfg.has(k));
  if (missing.length) throw new OperandTypeError(`operand 2 missing required AWS config parameters(s): ${setText(missing)}`);
  const invalid = REQUIRED.filter((k) => typeof cfg.getStr(k) !== 'string');
  if (invalid.length) throw new OperandTypeError(`operand 2 invalid values for required AWS config parameters(s): ${setText(invalid)}`);
  const ts = args[2]!;
  if (!isNumber(ts)) throw operandError(1, 'number', ts);
  let timeNs: bigint;
  try {
    timeNs = BigInt(typeof ts === 'number' ? ts : ts.dec.toFixed());
  } catch {
    throw new OperandTypeError('operand 3 could not convert time_ns value into a unix timestamp');
  }
  validateRequestKeys(req, 1);
  let headers = new RObject();
  const h = req.getStr('headers');
  if (h !== undefined) {
    if (!(h instanceof RObject)) throw operandError(0, 'object', h);
    headers = h;
  }
  const invalidParams: string[] = [];
  if (typeof req.getStr('url') !== 'string') invalidParams.push('url');
  if (typeof req.getStr('method') !== 'string') invalidParams.push('method');
  if (invalidParams.length) throw new OperandTypeError(`operand 1 invalid values for required request parameters(s): ${setText(invalidParams)}`);
  const rawBody = req.getStr('raw_body');
  const bodyV = req.getStr('body');
  const body = rawBody !== undefined ? Buffer.from(str(rawBody), 'utf8') : bodyV !== undefined ? Buffer.from(goJSONMarshal(bodyV), 'utf8') : Buffer.alloc(0);
  const headerMap = new Map<string, string>();
  for (const [k, v] of headers.entries()) headerMap.set(str(k), str(v));
  let disablePayloadSigning = false;
  const dps = cfg.getStr('disable_payload_signing');
  if (dps !== undefined) {
    if (typeof dps !== 'boolean') throw new OperandTypeError("operand 2 invalid value for 'disable_payload_signing' in AWS config");
    disablePayloadSigning = dps;
  }
  const { authorization, awsHeaders } = signV4({
    headers: headerMap,
    method: str(req.getStr('method')),
    url: str(req.getStr('url')),
    body,
    service: str(cfg.getStr('aws_service')),
    accessKey: str(cfg.getStr('aws_access_key')),
    secretKey: str(cfg.getStr('aws_secret_access_key')),
    region: str(cfg.getStr('aws_region')),
    sessionToken: str(cfg.getStr('aws_session_token')),
    timeNs,
    disablePayloadSigning,
  });
  const signed = new RObject();
  for (const [k, v] of headerMap) signed.set(k, v);
  signed.set('Authorization', authorization);
  for (const [k, v] of awsHeaders) signed.set(k, v);
  const out = req.clone();
  out.set('headers', signed);
  return out;
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'providers.aws.sign_req',
      args: [T.objectOf(T.string, T.any), T.objectOf(T.string, T.any), T.number],
      result: T.objectOf(T.any, T.any),
      categories: ['providers.aws'],
      description: 'Signs an HTTP request object for Amazon Web Services (AWS Signature Version 4).',
    },
    impl: signReq,
  },
];
