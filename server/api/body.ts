// Request bodies: the raw bytes and, for gzip bodies, the inflated bytes (read as
// streams by body-reader.ts under server.decoding.max_length and
// server.decoding.gzip.max_length, with a streaming JSON depth check), a
// nesting-depth limit, and JSON or YAML parsing (YAML when the Content-Type
// contains "yaml"; alias expansion and nesting bounded by runtime/value/yaml-limits.ts).
// Integers beyond 2^53 keep their exact value. Parsed bodies are cached per
// request, so the authorizer and the handler parse a body once.
import { gunzipSync } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { load as loadYAML } from 'js-yaml';
import { YAMLLimitError, checkYAMLDocument, goJSONDecode, INEXACT_NUMBER, nestingDepth, parseJSON, type GoJSONMode, type Value } from '../../runtime/index.js';
import { MSG, badRequest } from './errors.js';
import { bodyInfo } from './body-reader.js';
import { goYAMLError } from './go-yaml-errors.js';

export interface BodyLimits {
  /** server.decoding.gzip.max_length: cap on the decompressed size. */
  gzipMaxLength: number;
  /** Deepest nesting of arrays/objects accepted in a JSON or YAML body. */
  maxDepth: number;
  /** The text's bracket depth was already checked (while the body streamed). */
  depthChecked?: boolean;
}

/** A parsed JSON/YAML document: plain JS, plus the exact Value when it holds big numbers. */
export interface ParsedDocument {
  js: unknown;
  exact?: Value;
}

const BIG_NUMBER = INEXACT_NUMBER;
/** Where a request's parsed body is kept (null: parsed, empty). A property, not a WeakMap: cheaper per request. */
const PARSED_BODY = Symbol('regent.parsedBody');
type WithParsedBody = FastifyRequest & { [PARSED_BODY]?: ParsedDocument | null };

/** The body bytes as text, gunzipped when `Content-Encoding: gzip` and `gunzip` is set. */
export function bodyText(req: FastifyRequest, limits: BodyLimits, gunzip = true): string {
  const raw = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return '';
  const info = bodyInfo(req);
  // The reader stopped at a nesting deeper than the limit: a text that fails the
  // depth check of parseDocument, which words the error for the route.
  if (info?.tooDeep) return '['.repeat(limits.maxDepth + 1);
  const encoding = String(req.headers['content-encoding'] ?? '');
  if (!gunzip || !encoding.includes('gzip')) return raw.toString('utf8');
  if (info?.inflated) return info.inflated.toString('utf8');
  // Not read by body-reader.ts (a body handed over directly): inflate here.
  try {
    return gunzipSync(raw, { maxOutputLength: limits.gzipMaxLength }).toString('utf8');
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) throw badRequest(`could not decompress the body: ${MSG.gzipPayloadTooLarge}`);
    throw badRequest(`could not decompress the body: ${(e as Error).message}`);
  }
}

export function isYAML(req: FastifyRequest): boolean {
  return String(req.headers['content-type'] ?? '').includes('yaml');
}

/** Parse a JSON or YAML document; `prefix` starts the 400 message on failure. Empty text → undefined. */
export function parseDocument(text: string, yaml: boolean, limits: BodyLimits, prefix: string, mode: GoJSONMode = 'decode'): ParsedDocument | undefined {
  if (text.trim() === '') return undefined;
  // Nesting deeper than maxDepth needs more than maxDepth bracket characters.
  if (!limits.depthChecked && text.length > limits.maxDepth && nestingDepth(text, limits.maxDepth) > limits.maxDepth) throw badRequest(prefix ? `${prefix}: exceeded max depth` : "exceeded max depth");
  try {
    if (yaml) {
      const js = loadYAML(text);
      checkYAMLDocument(js, limits.maxDepth);
      return js === undefined ? undefined : { js };
    }
    if (BIG_NUMBER.test(text)) {
      const exact = parseJSON(text);
      return { js: JSON.parse(text), exact };
    }
    return { js: JSON.parse(text) };
  } catch (e) {
    if (e instanceof YAMLLimitError) throw badRequest(prefix ? `${prefix}: ${e.message}` : e.message);
    // OPA's texts: go-yaml's, or Go's json.Decoder's, which reads only the first value (runtime/value/go-json.ts).
    if (yaml) throw badRequest(`${prefix}: ${goYAMLError(text, e)}`);
    const go = goJSONDecode(text, mode);
    if (go.ok && go.end < text.length) return parseDocument(text.slice(0, go.end), yaml, limits, prefix, mode);
    const message = go.ok ? (e instanceof Error ? e.message.split('\n')[0]! : String(e)) : go.message;
    throw badRequest(prefix ? `${prefix}: ${message}` : message);
  }
}

/** `limits` with depthChecked set, made once per limits object (a spread per request body cost ~2 µs in profiles). */
const checkedLimits = new WeakMap<BodyLimits, BodyLimits>();
function depthCheckedLimits(limits: BodyLimits): BodyLimits {
  let checked = checkedLimits.get(limits);
  if (checked === undefined) checkedLimits.set(limits, (checked = { ...limits, depthChecked: true }));
  return checked;
}

/** The request body parsed once (gzip allowed, YAML by Content-Type). */
export function requestDocument(req: FastifyRequest, limits: BodyLimits, prefix: string, mode: GoJSONMode = 'decode'): ParsedDocument | undefined {
  const cached = (req as WithParsedBody)[PARSED_BODY];
  if (cached !== undefined) return cached ?? undefined;
  const yaml = isYAML(req);
  // JSON bodies were depth-checked while they streamed (body-reader.ts): no second scan.
  const checked = !yaml && bodyInfo(req)?.depthChecked === true ? depthCheckedLimits(limits) : limits;
  const doc = parseDocument(bodyText(req, limits), yaml, checked, prefix, mode);
  (req as WithParsedBody)[PARSED_BODY] = doc ?? null;
  return doc;
}

/** Go's json.UnmarshalTypeError text: a JSON value of the wrong kind decoded `into` a Go type or struct field. */
export function goTypeMismatch(value: unknown, into: string): string {
  const kind = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${kind} into ${into}`;
}

/** A member of a parsed object document, keeping exactness. */
export function documentMember(doc: ParsedDocument, key: string): ParsedDocument | undefined {
  const js = doc.js;
  if (js === null || typeof js !== 'object' || Array.isArray(js) || !Object.hasOwn(js, key)) return undefined;
  const value = (js as Record<string, unknown>)[key];
  if (doc.exact === undefined) return { js: value };
  const exact = (doc.exact as { get?: (k: Value) => Value | undefined }).get?.(key);
  return exact === undefined ? { js: value } : { js: value, exact };
}
