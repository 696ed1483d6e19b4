// Building a large JSON document (a 50 MB PUT /v1/data body, a bundle data file)
// into Rego values in slices, so the thread doing it keeps serving between slices.
//
// The bytes are walked structurally only where a container is larger than CHUNK
// (json-walker.ts); everything that closes within CHUNK bytes is a "small" member.
// - A big array's small members are parsed by the native JSON.parse in one call per
//   run of RUN bytes and adopted in place (RObject.adopt, no second copy).
// - A big object's small members are not built: their keys and byte ranges are
//   indexed and the object is a lazy one (lazy-object.ts) that parses a member on
//   first read. Its runs are still parsed once (and dropped) to check the syntax, so
//   a bad document is refused before it is written. Building ~2.4× the text's size
//   in long-lived objects is what made garbage collection stall the thread; the
//   index is a small fraction of that. A top-level object with at most
//   EAGER_TOP_MEMBERS small members is built in full (its keys are listed, which
//   reads every member, when a worker reports it; see server/engine/worker.ts).
// Big members are descended into. The generator yields after each run and each
// closed container; `buildDocument` drives it in time slices of `sliceMs`,
// `buildDocumentSync` in one go. Errors are JSONBuildError: a syntax error (the
// caller words it as Go would, from the whole text), the nesting limit (`exceeded
// max depth`), or the thread's heap ceiling (checked between runs).
import { RObject } from '../value/collections.js';
import { heapAboveCeiling } from '../eval/limits.js';
import type { Value } from '../value/value.js';
import { CHUNK, JSONBuildError, Walker } from './json-walker.js';
import { lazyObject, type MemberSource } from './lazy-object.js';

export { JSONBuildError } from './json-walker.js';

/** Runs of small members are parsed (and the generator yields) every this many bytes. */
const RUN = 64 * 1024;
/** A top-level object with at most this many small members is built in full. */
export const EAGER_TOP_MEMBERS = 10_000;
/** The prototype RObject.adopt gives (no inherited members). */
const BARE = Object.getPrototypeOf(RObject.bareProps()) as object;

export interface BuildOptions {
  /** Deepest nesting accepted (arrays and objects); deeper is `exceeded max depth`. */
  maxDepth: number;
  /** Longest uninterrupted work in buildDocument (ms, default 4). */
  sliceMs?: number;
}

type Bytes = Uint8Array;

interface Frame {
  kind: 'object' | 'array';
  /** Objects: small members' keys → member number (last occurrence wins). */
  index?: Map<string, number>;
  /** Objects: per member number, its key's start, its value's start and end. */
  ranges?: Int32Array | Float64Array;
  /** Objects: per member number, EXACT and AFTER_GAP flags. */
  flags?: Uint8Array;
  /** Objects: member numbers given so far. */
  members: number;
  /** Objects: a big member was read since the last small one. */
  gap: boolean;
  /** Objects: members that are big containers, built. */
  built?: Map<string, Value>;
  items?: Value[];
  /** Key of this container in its parent object. */
  key?: string;
  runStart: number;
  /** The run starts at the container's first member (no comma before it). */
  runFirst: boolean;
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
  let n = 0;
  for (const k in o) {
    n++;
    const x = o[k];
    if (x !== null && typeof x === 'object') o[k] = adopt(x);
    else if (x === 0) o[k] = 0;
  }
  // As RObject.adopt, counting the keys here instead of listing them (Object.keys).
  Object.setPrototypeOf(o, BARE);
  return new RObject(o as Record<string, Value>, n);
}

/** Member flag: its value holds a number a double cannot keep exact. */
const EXACT = 1;
/** Member flag: not adjacent to the previous small member (first, or a big member between). */
const AFTER_GAP = 2;
/** Bytes parsed per JSON.parse call when every member of a lazy object is parsed. */
const COMPLETE_RUN = 256 * 1024;

/** The members of a lazy object: one parsed from its bytes, or all of them in runs. */
function memberSource(bytes: Bytes, ranges: Int32Array | Float64Array, flags: Uint8Array, members: number): MemberSource {
  const w = new Walker(bytes, Infinity);
  return {
    member: (n) => {
      w.exact = (flags[n]! & EXACT) !== 0;
      return adoptText(w, ranges[3 * n + 1]!, ranges[3 * n + 2]!);
    },
    forEachRun: (visit) => {
      for (let lo = 0; lo < members; ) {
        let hi = lo + 1;
        let exact = flags[lo]! & EXACT;
        while (hi < members && !(flags[hi]! & AFTER_GAP) && ranges[3 * hi + 2]! - ranges[3 * lo]! <= COMPLETE_RUN) exact |= flags[hi++]! & EXACT;
        const parsed = w.parse(w.wrapped(0x7b, ranges[3 * lo]!, ranges[3 * (hi - 1) + 2]!, 0x7d), exact !== 0, ranges[3 * lo]!);
        if (parsed instanceof RObject) parsed.forEachUnordered((k, v) => (visit(k as string, v, lo, hi), false));
        else for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) visit(k, adopt(v), lo, hi);
        lo = hi;
      }
    },
  };
}

/** Record a small member of an object frame: key at `keyStart`, value at [start, end). */
function indexMember(f: Frame, key: string, keyStart: number, start: number, end: number, exact: boolean): void {
  // A duplicated key gets a new number: Map.set keeps the key's first place and its last value.
  const n = f.members++;
  if (3 * n + 3 > f.ranges!.length) {
    const grown = f.ranges instanceof Float64Array || end > 0x7fffffff ? new Float64Array(f.ranges!.length * 2) : new Int32Array(f.ranges!.length * 2);
    grown.set(f.ranges!);
    f.ranges = grown;
    const flags = new Uint8Array(f.flags!.length * 2);
    flags.set(f.flags!);
    f.flags = flags;
  }
  f.ranges![3 * n] = keyStart;
  f.ranges![3 * n + 1] = start;
  f.ranges![3 * n + 2] = end;
  f.flags![n] = (exact ? EXACT : 0) | (n === 0 || f.gap ? AFTER_GAP : 0);
  f.gap = false;
  f.index!.set(key, n);
  if (f.built!.size > 0) f.built!.delete(key);
}

function flush(w: Walker, f: Frame): void {
  if (f.runStart < 0) return;
  // The document must fit under this thread's heap ceiling (runtime/eval/limits.ts): a
  // clean error now rather than the thread (or, inside JSON.parse, the process) dying.
  if (heapAboveCeiling()) throw new JSONBuildError('memory', 'the document does not fit in the heap limit', f.runStart);
  if (f.kind === 'object') {
    // Only checked: the members were indexed, and are parsed when first read.
    w.parse(w.wrapped(0x7b, f.runStart, f.runEnd, 0x7d), false, f.runStart);
  } else {
    const parsed = w.parse(w.wrapped(0x5b, f.runStart, f.runEnd, 0x5d), f.runExact, f.runStart) as unknown[];
    const items = f.items!;
    for (let i = 0; i < parsed.length; i++) items.push(f.runExact ? (parsed[i] as Value) : adopt(parsed[i]));
  }
  f.runStart = f.runEnd = -1;
  f.runExact = false;
}

/** The value of a closed object frame: lazy, or (top level, few members) built in full in runs. */
function* closeObject(f: Frame, top: boolean, bytes: Bytes): Generator<void, RObject> {
  const index = f.index!;
  const built = f.built!;
  const source = memberSource(bytes, f.ranges!.slice(0, 3 * f.members), f.flags!.slice(0, f.members), f.members);
  if (index.size > 0 && (!top || index.size > EAGER_TOP_MEMBERS)) return lazyObject(index, source, built);
  const props = RObject.bareProps();
  let size = built.size;
  for (const [k, v] of built) props[k] = v;
  let sinceYield = 0;
  for (const [k, n] of index) {
    const start = f.ranges![3 * n + 1]!;
    const end = f.ranges![3 * n + 2]!;
    props[k] = source.member(n);
    size++;
    sinceYield += end - start;
    if (sinceYield >= RUN) {
      sinceYield = 0;
      yield;
    }
  }
  return new RObject(props, size);
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
    const members = kind === 'object' ? { index: new Map<string, number>(), ranges: new Int32Array(384), flags: new Uint8Array(128), built: new Map<string, Value>() } : { items: [] };
    stack.push({ kind, ...members, members: 0, gap: false, ...(key === undefined ? {} : { key }), runStart: -1, runFirst: false, runEnd: -1, runExact: false });
  };
  open(i);
  i = w.ws(i + 1);
  let expectMember = true;
  let first = true;
  let at = i; // where the current step started reading
  try {
    for (;;) {
      at = i;
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
        if (key !== undefined) indexMember(f, key, memberStart, i, valueEnd, w.exact);
        if (f.runStart < 0) {
          f.runStart = memberStart;
          f.runFirst = first;
        }
        f.runEnd = valueEnd;
        f.runExact ||= w.exact;
        i = w.ws(valueEnd);
        expectMember = first = false;
        if (f.runEnd - f.runStart >= RUN) {
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
      const value = f.kind === 'object' ? yield* closeObject(f, stack.length === 0, bytes) : f.items!;
      i = w.ws(i + 1);
      const parent = stack[stack.length - 1];
      if (!parent) return value;
      if (parent.kind === 'object') {
        parent.index!.delete(f.key!); // a duplicated key: this (last) value wins
        parent.built!.set(f.key!, value);
        parent.gap = true; // the next small member does not follow the previous one
      } else parent.items!.push(value);
      expectMember = first = false;
      yield;
    }
  } catch (e) {
    if (e instanceof JSONBuildError && e.kind === 'syntax') e.resume = resumeAt(stack, at, expectMember, first);
    throw e;
  }
}

/**
 * Where Go's scanner can take up a syntax error found while walking: the innermost
 * container's pending run (all before it was checked), else the member being read,
 * behind a prefix that puts the scanner in the same state (the open containers, and
 * a member before a comma or after which a comma or closer is expected).
 */
function resumeAt(stack: Frame[], i: number, expectMember: boolean, first: boolean): JSONBuildError['resume'] {
  const f = stack[stack.length - 1];
  if (!f) return undefined;
  let prefix = '';
  for (let k = 0; k < stack.length - 1; k++) prefix += stack[k]!.kind === 'object' ? '{"":' : '[';
  prefix += f.kind === 'object' ? '{' : '[';
  const member = f.kind === 'object' ? '"":0' : '0';
  if (f.runStart >= 0) return { prefix: f.runFirst ? prefix : prefix + member + ',', from: f.runStart };
  if (expectMember) return { prefix: first ? prefix : prefix + member + ',', from: i };
  return { prefix: prefix + member, from: i };
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
