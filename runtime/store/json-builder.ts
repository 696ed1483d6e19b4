// Building a large JSON document (a 50 MB PUT /v1/data body, a bundle data file)
// into Rego values in slices, so the thread doing it keeps serving between slices.
//
// The bytes are walked structurally only where a container is larger than CHUNK:
// inside such a container, runs of small members (each closes within CHUNK bytes)
// are decoded and parsed by the native JSON.parse in one call per run, and the
// parsed objects are adopted in place as RObjects (no second copy of any member,
// see RObject.adopt). Big members are descended into. The generator yields between
// runs; `buildDocument` drives it in time slices of `sliceMs`, `buildDocumentSync`
// in one go. Errors are JSONBuildError: a syntax error (the caller words it as Go
// would, from the whole text), the nesting limit (`exceeded max depth`), or the
// thread's heap ceiling (checked between runs).
import { RObject } from '../value/collections.js';
import { heapAboveCeiling } from '../eval/limits.js';
import { parseJSONExact } from '../value/json-parse.js';
import type { Value } from '../value/value.js';

/** Containers closing within this many bytes are parsed natively in one piece. */
const CHUNK = 256 * 1024;

export class JSONBuildError extends Error {
  constructor(
    readonly kind: 'syntax' | 'depth' | 'memory',
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'JSONBuildError';
  }
}

export interface BuildOptions {
  /** Deepest nesting accepted (arrays and objects); deeper is `exceeded max depth`. */
  maxDepth: number;
  /** Longest uninterrupted work in buildDocument (ms, default 4). */
  sliceMs?: number;
}

type Bytes = Uint8Array;

interface Frame {
  kind: 'object' | 'array';
  props?: Record<string, Value>;
  /** Number of keys in props. */
  count: number;
  items?: Value[];
  /** Key of this container in its parent object. */
  key?: string;
  runStart: number;
  runEnd: number;
  runExact: boolean;
}

/** Convert JSON.parse output to Values in place (objects adopted, -0 → 0). */
function adopt(v: unknown): Value {
  if (v === null || typeof v !== 'object') return v === 0 ? 0 : (v as Value);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (x !== null && typeof x === 'object') v[i] = adopt(x);
      else if (x === 0) v[i] = 0;
    }
    return v as Value[];
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (x !== null && typeof x === 'object') o[k] = adopt(x);
    else if (x === 0) o[k] = 0;
  }
  return RObject.adopt(o);
}

const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

class Walker {
  readonly buf: Buffer;
  /** Set by scan(): the scanned value holds a number a double cannot keep exact. */
  exact = false;

  constructor(
    readonly bytes: Bytes,
    readonly maxDepth: number,
  ) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(at: number): never {
    throw new JSONBuildError('syntax', 'invalid JSON', at);
  }

  ws(i: number): number {
    const b = this.bytes;
    while (i < b.length && isWs(b[i]!)) i++;
    return i;
  }

  /** End (exclusive) of the string starting at `i` (a quote). */
  stringEnd(i: number): number {
    const b = this.bytes;
    for (let j = i + 1; j < b.length; j++) {
      const c = b[j]!;
      if (c === 0x5c) j++;
      else if (c === 0x22) return j + 1;
    }
    return this.fail(i);
  }

  /**
   * End (exclusive) of the value at `i` when it closes within CHUNK bytes (strings
   * and scalars always), or -1 for a bigger container. `depth` is the nesting of
   * the value's parent, for the depth limit.
   */
  scan(i: number, depth: number): number {
    const b = this.bytes;
    const c = b[i];
    if (c === 0x22) return this.stringEnd(i);
    if (c !== 0x7b && c !== 0x5b) {
      let j = i;
      let digits = 0;
      while (j < b.length) {
        const d = b[j]!;
        if (d === 0x2c || d === 0x7d || d === 0x5d || isWs(d)) break;
        if (d >= 0x30 && d <= 0x39) {
          if (++digits >= 16) this.exact = true;
        } else if (d === 0x65 || d === 0x45) {
          if (largeExponent(b, j + 1)) this.exact = true;
        } else if (d !== 0x2e) digits = 0; // digits count across the decimal point
        j++;
      }
      if (j === i) this.fail(i);
      return j;
    }
    const limit = Math.min(b.length, i + CHUNK);
    let level = 0;
    let digits = 0;
    for (let j = i; j < limit; j++) {
      const d = b[j]!;
      if (d === 0x22) {
        j = this.stringEnd(j) - 1;
        digits = 0;
      } else if (d === 0x7b || d === 0x5b) {
        if (++level + depth > this.maxDepth) throw new JSONBuildError('depth', 'exceeded max depth', j);
      } else if (d === 0x7d || d === 0x5d) {
        if (--level === 0) return j + 1;
      } else if (d >= 0x30 && d <= 0x39) {
        if (++digits >= 16) this.exact = true;
      } else {
        if ((d === 0x65 || d === 0x45) && digits > 0) {
          if (largeExponent(b, j + 1)) this.exact = true;
        }
        if (d !== 0x2e) digits = 0; // digits count across the decimal point
      }
    }
    if (limit === b.length) this.fail(i);
    return -1;
  }

  text(start: number, end: number): string {
    return this.buf.toString('utf8', start, end);
  }

  private scratch = Buffer.alloc(0);

  /** The bytes [start, end) between `open` and `close` as one string (no concatenation to flatten). */
  wrapped(open: number, start: number, end: number, close: number): string {
    const n = end - start;
    if (this.scratch.length < n + 2) this.scratch = Buffer.allocUnsafe(Math.max(n + 2, 2 * CHUNK));
    this.scratch[0] = open;
    this.buf.copy(this.scratch, 1, start, end);
    this.scratch[n + 1] = close;
    return this.scratch.toString('utf8', 0, n + 2);
  }

  /** A key string (with its quotes) at [start, end). */
  key(start: number, end: number): string {
    if (this.bytes.subarray(start, end).includes(0x5c)) return JSON.parse(this.text(start, end)) as string;
    return this.text(start + 1, end - 1);
  }

  /** Parse a small value or a run of members natively. */
  parse(text: string, exact: boolean, at: number): unknown {
    try {
      return exact ? parseJSONExact(text) : JSON.parse(text);
    } catch {
      return this.fail(at);
    }
  }
}

function flush(w: Walker, f: Frame): void {
  if (f.runStart < 0) return;
  // The document must fit under this thread's heap ceiling (runtime/eval/limits.ts): a
  // clean error now rather than the thread (or, inside JSON.parse, the process) dying.
  if (heapAboveCeiling()) throw new JSONBuildError('memory', 'the document does not fit in the heap limit', f.runStart);
  if (f.kind === 'object') {
    const parsed = w.parse(w.wrapped(0x7b, f.runStart, f.runEnd, 0x7d), f.runExact, f.runStart);
    const props = f.props!;
    if (parsed instanceof RObject) {
      for (const [k, v] of parsed.unorderedEntries()) {
        if (!((k as string) in props)) f.count++;
        props[k as string] = v;
      }
    } else {
      const o = parsed as Record<string, unknown>;
      for (const k in o) {
        if (!(k in props)) f.count++;
        props[k] = adopt(o[k]);
      }
    }
  } else {
    const parsed = w.parse(w.wrapped(0x5b, f.runStart, f.runEnd, 0x5d), f.runExact, f.runStart) as unknown[];
    const items = f.items!;
    for (let i = 0; i < parsed.length; i++) items.push(f.runExact ? (parsed[i] as Value) : adopt(parsed[i]));
  }
  f.runStart = f.runEnd = -1;
  f.runExact = false;
}

function close(f: Frame): Value {
  return f.kind === 'object' ? new RObject(f.props!, f.count) : f.items!;
}

/**
 * The document in `bytes` (its first JSON value; what follows is ignored, as by
 * Go's json.Decoder). Undefined when the bytes hold only whitespace.
 */
function* build(bytes: Bytes, maxDepth: number): Generator<void, Value | undefined> {
  const w = new Walker(bytes, maxDepth);
  let i = w.ws(0);
  if (i >= bytes.length) return undefined;
  w.exact = false;
  const end = w.scan(i, 0);
  if (end >= 0) return adoptText(w, i, end);
  const stack: Frame[] = [];
  const open = (at: number, key?: string): void => {
    const kind = bytes[at] === 0x7b ? 'object' : 'array';
    if (stack.length + 1 > maxDepth) throw new JSONBuildError('depth', 'exceeded max depth', at);
    stack.push({ kind, ...(kind === 'object' ? { props: RObject.bareProps() } : { items: [] }), count: 0, ...(key === undefined ? {} : { key }), runStart: -1, runEnd: -1, runExact: false });
  };
  open(i);
  i = w.ws(i + 1);
  let expectMember = true;
  let first = true;
  for (;;) {
    const f = stack[stack.length - 1]!;
    const closer = f.kind === 'object' ? 0x7d : 0x5d;
    if (expectMember && !(first && bytes[i] === closer)) {
      const memberStart = i;
      let key: string | undefined;
      if (f.kind === 'object') {
        if (bytes[i] !== 0x22) w.fail(i);
        const keyEnd = w.stringEnd(i);
        key = w.key(i, keyEnd);
        i = w.ws(keyEnd);
        if (bytes[i] !== 0x3a) w.fail(i);
        i = w.ws(i + 1);
      }
      if (i >= bytes.length) w.fail(i);
      w.exact = false;
      const valueEnd = w.scan(i, stack.length);
      if (valueEnd < 0) {
        // A big container: descend into it.
        flush(w, f);
        open(i, key);
        i = w.ws(i + 1);
        expectMember = first = true;
        yield;
        continue;
      }
      if (f.runStart < 0) f.runStart = memberStart;
      f.runEnd = valueEnd;
      f.runExact ||= w.exact;
      i = w.ws(valueEnd);
      expectMember = first = false;
      if (f.runEnd - f.runStart >= CHUNK) {
        flush(w, f);
        yield;
      }
      continue;
    }
    if (!expectMember && bytes[i] === 0x2c) {
      i = w.ws(i + 1);
      expectMember = true;
      continue;
    }
    if (bytes[i] !== closer) w.fail(i);
    flush(w, f);
    stack.pop();
    const value = close(f);
    i = w.ws(i + 1);
    const parent = stack[stack.length - 1];
    if (!parent) return value;
    if (parent.kind === 'object') {
      if (!(f.key! in parent.props!)) parent.count++;
      parent.props![f.key!] = value;
    }
    else parent.items!.push(value);
    expectMember = first = false;
    yield;
  }
}

function adoptText(w: Walker, start: number, end: number): Value {
  const exact = w.exact;
  const parsed = w.parse(w.text(start, end), exact, start);
  return exact ? (parsed as Value) : adopt(parsed);
}

/** Build the document in one go (no yielding). */
export function buildDocumentSync(bytes: Bytes, opts: BuildOptions): Value | undefined {
  const it = build(bytes, opts.maxDepth);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/** Build the document in slices of about `sliceMs`, yielding to the event loop between them. */
export async function buildDocument(bytes: Bytes, opts: BuildOptions): Promise<Value | undefined> {
  const sliceMs = opts.sliceMs ?? 4;
  const it = build(bytes, opts.maxDepth);
  let until = performance.now() + sliceMs;
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    if (performance.now() >= until) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      until = performance.now() + sliceMs;
    }
  }
}

/**
 * Whether the exponent starting at `k` (after `e`/`E`) may leave a double inexact:
 * two or more digits (`e30`), three or more when negative (`e-300`). As
 * INEXACT_NUMBER in runtime/value/json.ts.
 */
function largeExponent(b: Uint8Array, k: number): boolean {
  const isDigit = (x: number | undefined) => x !== undefined && x >= 0x30 && x <= 0x39;
  const negative = b[k] === 0x2d;
  if (b[k] === 0x2b || negative) k++;
  return isDigit(b[k]) && isDigit(b[k + 1]) && (!negative || isDigit(b[k + 2]));
}
