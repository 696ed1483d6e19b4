// Decision log events as JSON, and OPA's masking of them (v1/plugins/logs
// plugin.go EventV1 field order, mask.go). Rego values keep exact numbers via
// toJSONText. Masking applies the result of the mask policy: JSON pointers
// (erase, listed in `erased`) or `{op: upsert|remove, path, value}` objects
// (listed in `masked` / `erased`), only under /input, /result, /nd_builtin_cache.
import { RObject, RSet, fromJS, parseJSON, toJS, toJSONText, type Value } from '../../runtime/index.js';
import type { DecisionEvent } from './contract.js';

const ORDER = ['labels', 'decision_id', 'trace_id', 'span_id', 'revision', 'bundles', 'path', 'query', 'input', 'result', 'mapped_result', 'nd_builtin_cache', 'erased', 'masked', 'error', 'requested_by', 'timestamp', 'metrics', 'req_id', 'request_context'];
const VALUE_FIELDS = new Set(['input', 'result', 'mapped_result', 'nd_builtin_cache']);
/** Fields that hold plain JSON data (no Rego values): stringified without a replacer, which is much faster. */
const PLAIN_FIELDS = new Set(['labels', 'decision_id', 'trace_id', 'span_id', 'revision', 'bundles', 'path', 'query', 'erased', 'masked', 'requested_by', 'timestamp', 'metrics', 'req_id']);
const KNOWN = new Set(ORDER);

/**
 * A Data API decision's input and result, kept as they came (the parsed request
 * JSON, the result's JSON text) instead of Rego values: eventJSON writes them
 * as text, and withValues() makes the values when something needs them (a mask
 * policy, a host plugin). An event's own `input` / `result`, once set, win.
 */
export const RENDERED = Symbol('regent.renderedEventFields');
export interface RenderedFields {
  /** The input as plain JSON data (JSON.parse output). */
  input?: unknown;
  /** Its JSON text, made on first use. */
  inputText?: string;
  /** The result's JSON text (toJSONText, compact). */
  resultText?: string;
  /** The `metrics` object's JSON text (keys sorted); the object is made by withValues. */
  metricsText?: string;
  /** The JSON text of the event's `labels`, valid while `labels` is this very object (shared by the server's events). */
  labels?: Record<string, string>;
  labelsText?: string;
}
export type RenderedEvent = DecisionEvent & { [RENDERED]?: RenderedFields | undefined };

/** The event with `input` and `result` as Rego values (filled in from the rendered fields, in place). */
export function withValues<E extends DecisionEvent>(event: E): E {
  const e = event as E & RenderedEvent;
  const r = e[RENDERED];
  if (r === undefined) return event;
  if (e.input === undefined && r.input !== undefined) e.input = fromJS(r.input);
  if (e.result === undefined && r.resultText !== undefined) e.result = parseJSON(r.resultText);
  if (e.metrics === undefined && r.metricsText !== undefined) e.metrics = JSON.parse(r.metricsText) as Record<string, number>;
  e[RENDERED] = undefined;
  return event;
}

/**
 * JSON.stringify of a string, without the call for the common text: no quote,
 * backslash, control character or surrogate (the only characters JSON.stringify
 * escapes; a surrogate, even paired, takes the call).
 */
export function quoteJSON(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return '"' + s + '"';
}

/** `"key":` of object keys seen in inputs, bounded (decision inputs repeat a few key sets). */
const keyPrefixes = new Map<string, string>();
function keyPrefix(k: string): string {
  if (k.length > 64) return quoteJSON(k) + ':';
  let p = keyPrefixes.get(k);
  if (p === undefined) {
    if (keyPrefixes.size >= 4096) keyPrefixes.clear();
    keyPrefixes.set(k, (p = quoteJSON(k) + ':'));
  }
  return p;
}

/**
 * Plain JSON data (as JSON.parse gives it) as the JSON text of the Rego value
 * fromJS would make of it: object keys sorted, numbers as formatNumber prints a
 * double (String(n); -0 is 0), no HTML escaping (toJSONText's output, without
 * building the value first).
 */
export function sortedJSONText(x: unknown): string {
  if (x === null || x === undefined) return 'null';
  switch (typeof x) {
    case 'string':
      return quoteJSON(x);
    case 'number':
      return String(x === 0 ? 0 : x);
    case 'boolean':
      return x ? 'true' : 'false';
    case 'object':
      break;
    default:
      return 'null';
  }
  if (Array.isArray(x)) {
    let out = '[';
    for (let i = 0; i < x.length; i++) out += (i ? ',' : '') + sortedJSONText(x[i]);
    return out + ']';
  }
  const o = x as Record<string, unknown>;
  const keys = Object.keys(o);
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++) if (keys[i - 1]! > keys[i]!) ordered = false;
  if (!ordered) keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let out = '{';
  for (let i = 0; i < keys.length; i++) out += (i ? ',' : '') + keyPrefix(keys[i]!) + sortedJSONText(o[keys[i]!]);
  return out + '}';
}

function renderedText(r: RenderedFields, key: string): string | undefined {
  if (key === 'input') return r.input === undefined ? undefined : (r.inputText ??= sortedJSONText(r.input));
  if (key === 'result') return r.resultText;
  if (key === 'metrics') return r.metricsText;
  return undefined;
}

/** `"key":` for each known field, made once. */
const KEY_PREFIX = new Map(ORDER.map((k) => [k, JSON.stringify(k) + ':']));

function fieldJSON(key: string, v: unknown): string {
  if (VALUE_FIELDS.has(key)) return toJSONText(v as Value);
  if (PLAIN_FIELDS.has(key)) return JSON.stringify(v) ?? 'null';
  if (v instanceof RObject || v instanceof RSet) return toJSONText(v);
  return JSON.stringify(v, (_k, x: unknown) => (x instanceof RObject || x instanceof RSet ? toJS(x) : x)) ?? 'null';
}

/** The event as one JSON object, fields in OPA's struct order, undefined fields omitted. */
export function eventJSON(e: DecisionEvent): string {
  const rendered = (e as RenderedEvent)[RENDERED];
  return rendered !== undefined ? renderedEventJSON(e, rendered) : genericEventJSON(e);
}

/** Any event: every known field in ORDER, then the others by name. */
export function genericEventJSON(e: DecisionEvent): string {
  const rec = e as unknown as Record<string, unknown>;
  const rendered = (e as RenderedEvent)[RENDERED];
  let out = '';
  for (const k of ORDER) {
    const v = rec[k];
    if (v !== undefined) out += (out ? ',' : '') + KEY_PREFIX.get(k)! + (k === 'labels' && rendered?.labelsText !== undefined && rendered.labels === v ? rendered.labelsText : fieldJSON(k, v));
    else if (rendered !== undefined) {
      const text = renderedText(rendered, k);
      if (text !== undefined) out += (out ? ',' : '') + KEY_PREFIX.get(k)! + text;
    }
  }
  const extra = Object.keys(rec).filter((k) => !KNOWN.has(k) && rec[k] !== undefined);
  for (const k of extra.sort()) out += (out ? ',' : '') + JSON.stringify(k) + ':' + fieldJSON(k, rec[k]);
  return '{' + out + '}';
}

/** The fields context.ts logDecision sets on a rendered event (any other: the generic writer). */
const RENDERED_EVENT_FIELDS = new Set(['labels', 'decision_id', 'path', 'query', 'input', 'result', 'bundles', 'metrics', 'error', 'requested_by', 'timestamp', 'custom']);

/**
 * A rendered event (made by context.ts logDecision, untouched since: masking makes
 * a plain event) written field by field in ORDER, as genericEventJSON writes it.
 */
function renderedEventJSON(e: DecisionEvent, r: RenderedFields): string {
  if (e.labels === undefined || e.decision_id === undefined || e.timestamp === undefined) return genericEventJSON(e);
  for (const k in e) if (!RENDERED_EVENT_FIELDS.has(k)) return genericEventJSON(e);
  let out = '{"labels":' + (r.labelsText !== undefined && r.labels === e.labels ? r.labelsText : JSON.stringify(e.labels)) + ',"decision_id":' + quoteJSON(e.decision_id);
  if (e.bundles !== undefined) out += ',"bundles":' + JSON.stringify(e.bundles);
  if (e.path !== undefined) out += ',"path":' + quoteJSON(e.path);
  if (e.query !== undefined) out += ',"query":' + quoteJSON(e.query);
  const input = e.input !== undefined ? toJSONText(e.input) : renderedText(r, 'input');
  if (input !== undefined) out += ',"input":' + input;
  const result = e.result !== undefined ? toJSONText(e.result) : r.resultText;
  if (result !== undefined) out += ',"result":' + result;
  if (e.error !== undefined) out += ',"error":' + fieldJSON('error', e.error);
  if (e.requested_by !== undefined) out += ',"requested_by":' + quoteJSON(e.requested_by);
  out += ',"timestamp":' + quoteJSON(e.timestamp);
  const metrics = e.metrics !== undefined ? JSON.stringify(e.metrics) : r.metricsText;
  if (metrics !== undefined) out += ',"metrics":' + metrics;
  if (e.custom !== undefined) out += ',"custom":' + fieldJSON('custom', e.custom);
  return out + '}';
}

/** The event as a Rego value (the input of the mask and drop policies). */
export function eventValue(e: DecisionEvent): Value {
  return fromJS(JSON.parse(eventJSON(e)));
}

const MASKABLE = new Set(['input', 'result', 'nd_builtin_cache']);

function pointer(path: string): string[] | undefined {
  if (!path.startsWith('/')) return undefined;
  const segs = path.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return MASKABLE.has(segs[0]!) ? segs : undefined;
}

function setIn(v: Value, segs: string[], value: Value | undefined, create: boolean): Value | undefined {
  if (segs.length === 0) return value;
  const [h, ...rest] = segs as [string, ...string[]];
  if (v instanceof RObject) {
    const child = v.get(h);
    if (child === undefined && (value === undefined || (!create && rest.length > 0))) return v;
    if (child === undefined && rest.length > 0 && !create) return v;
    const next = setIn(child ?? new RObject(), rest, value, create);
    const copy = v.clone();
    if (next === undefined) copy.delete(h);
    else copy.set(h, next);
    return copy;
  }
  if (Array.isArray(v) && /^\d+$/.test(h) && Number(h) < v.length) {
    const copy = v.slice();
    const next = setIn(copy[Number(h)]!, rest, value, create);
    if (next === undefined) copy.splice(Number(h), 1);
    else copy[Number(h)] = next;
    return copy;
  }
  return v;
}

/** Apply a mask policy result to an event (returns a new event). */
export function applyMask(e: DecisionEvent, mask: Value): DecisionEvent {
  withValues(e);
  const items = mask instanceof RSet ? mask.values() : Array.isArray(mask) ? mask : [];
  const out = { ...e } as Record<string, unknown>;
  const erased: string[] = [...(e.erased ?? [])];
  const masked: string[] = [...(e.masked ?? [])];
  for (const item of items) {
    let path: string | undefined;
    let op = 'remove';
    let value: Value | undefined;
    if (typeof item === 'string') path = item;
    else if (item instanceof RObject) {
      const p = item.get('path');
      const o = item.get('op');
      path = typeof p === 'string' ? p : undefined;
      op = typeof o === 'string' ? o : 'remove';
      value = item.get('value');
    }
    const segs = path === undefined ? undefined : pointer(path);
    if (!segs || (op !== 'remove' && op !== 'upsert')) continue;
    const [field, ...rest] = segs as [string, ...string[]];
    const current = out[field] as Value | undefined;
    if (op === 'remove') {
      if (current === undefined) continue;
      const next = rest.length === 0 ? undefined : setIn(current, rest, undefined, false);
      if (next === undefined) delete out[field];
      else out[field] = next;
      erased.push(path!);
    } else {
      out[field] = rest.length === 0 ? (value ?? null) : setIn(current ?? new RObject(), rest, value ?? null, true);
      masked.push(path!);
    }
  }
  if (erased.length > 0) out.erased = erased;
  if (masked.length > 0) out.masked = masked;
  return out as unknown as DecisionEvent;
}
