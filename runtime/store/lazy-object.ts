// Large JSON objects whose small members stay as bytes until first use.
//
// json-builder.ts makes one of these for each object of a large document whose text
// is bigger than a run (a `users` map of 200,000 records): it indexes the members'
// keys and byte ranges instead of building them, so a 50 MB document costs the
// thread building it an index and a few big containers rather than ~2.4× its size
// in long-lived objects (whose garbage collection stalled the worker's decisions).
// A member is parsed on first read (then kept), all of them in runs when the object
// is iterated; members that are big containers themselves were built with the object
// and are held from the start.
//
// The object is an ordinary RObject whose `props` is a Proxy: generated code reads
// `props[k]` as usual, `k in props` and `for…in` (every RObject method) see the
// indexed keys, and writes go to an overlay. The bytes are never written to (the
// body's shared memory is immutable once read). `cloneLazy` copies an object in
// O(members) without parsing any (the store's copy-on-write).
import { RObject } from '../value/collections.js';
import type { Value } from '../value/value.js';

type Props = Record<string, Value>;

/** The members of a lazy object, parsed from the document's bytes (json-builder.ts). */
export interface MemberSource {
  /** Member `n`'s value. */
  member(n: number): Value;
  /**
   * Every member parsed, in runs of adjacent members (one JSON.parse each): `visit`
   * gets each key with the value its last occurrence in members [lo, hi) has.
   */
  forEachRun(visit: (key: string, value: Value, lo: number, hi: number) => void): void;
}

interface LazyState {
  /** Key → member number (the last occurrence of a duplicated key, as JSON.parse). */
  index: Map<string, number>;
  source: MemberSource;
  /** Members parsed, prebuilt or written; a key here shadows the index. */
  overlay: Map<string, Value>;
  /** Indexed keys removed. */
  deleted: Set<string> | undefined;
  /** Every member is in the overlay (or deleted). */
  complete: boolean;
}

/** The lazy objects' props (proxies), with their state. */
const states = new WeakMap<object, LazyState>();

const Bare = Object.getPrototypeOf(RObject.bareProps()) as object;

function lookup(s: LazyState, k: string): Value | undefined {
  const v = s.overlay.get(k);
  if (v !== undefined) return v;
  if (s.deleted?.has(k)) return undefined;
  const n = s.index.get(k);
  if (n === undefined) return undefined;
  const parsed = s.source.member(n);
  s.overlay.set(k, parsed);
  return parsed;
}

/**
 * Parse every member not parsed yet, in runs: an iteration (for…in lists the keys
 * first) reads them all, and one JSON.parse per run costs a fraction of one per member.
 */
function completeAll(s: LazyState): void {
  s.complete = true;
  s.source.forEachRun((k, v, lo, hi) => {
    const n = s.index.get(k);
    if (n !== undefined && n >= lo && n < hi && !s.overlay.has(k) && !s.deleted?.has(k)) s.overlay.set(k, v);
  });
}

function present(s: LazyState, k: string): boolean {
  return s.overlay.has(k) || (s.index.has(k) && !s.deleted?.has(k));
}

function keysOf(s: LazyState): string[] {
  const out: string[] = [];
  for (const k of s.index.keys()) if (!s.deleted?.has(k)) out.push(k);
  for (const k of s.overlay.keys()) if (!s.index.has(k)) out.push(k);
  return out;
}

function handler(s: LazyState): ProxyHandler<Props> {
  return {
    get: (_t, k) => (typeof k === 'string' ? lookup(s, k) : undefined),
    has: (_t, k) => typeof k === 'string' && present(s, k),
    set: (_t, k, v) => {
      if (typeof k !== 'string') return false;
      s.overlay.set(k, v as Value);
      s.deleted?.delete(k);
      return true;
    },
    deleteProperty: (_t, k) => {
      if (typeof k !== 'string') return true;
      s.overlay.delete(k);
      if (s.index.has(k)) (s.deleted ??= new Set()).add(k);
      return true;
    },
    defineProperty: (_t, k, d) => {
      if (typeof k !== 'string' || !('value' in d)) return false;
      s.overlay.set(k, d.value as Value);
      s.deleted?.delete(k);
      return true;
    },
    ownKeys: () => {
      if (!s.complete) completeAll(s);
      return keysOf(s);
    },
    getOwnPropertyDescriptor: (_t, k) => {
      if (typeof k !== 'string' || !present(s, k)) return undefined;
      return { value: lookup(s, k), writable: true, enumerable: true, configurable: true };
    },
    getPrototypeOf: () => Bare,
    setPrototypeOf: () => false,
    preventExtensions: () => false,
  };
}

function make(s: LazyState, count: number): RObject {
  const props = new Proxy(Object.create(Bare) as Props, handler(s));
  states.set(props, s);
  return new RObject(props, count);
}

/**
 * An object of `index` members (key → member number) that `source` parses on first
 * read, plus `built` members held from the start (big containers).
 */
export function lazyObject(index: Map<string, number>, source: MemberSource, built: Map<string, Value>): RObject {
  let count = index.size;
  for (const k of built.keys()) if (!index.has(k)) count++;
  return make({ index, source, overlay: built, deleted: undefined, complete: false }, count);
}

/** True for an object made by lazyObject (or cloneLazy). */
export function isLazyObject(v: unknown): boolean {
  return v instanceof RObject && states.has(v.props);
}

/** How many members of a lazy object have been parsed, built or written (for tests). */
export function materializedCount(o: RObject): number {
  return states.get(o.props)?.overlay.size ?? -1;
}

/** A copy of a lazy object sharing its bytes and index (members already parsed are shared too). */
export function cloneLazy(o: RObject): RObject {
  const s = states.get(o.props)!; // callers check isLazyObject first
  return make({ index: s.index, source: s.source, overlay: new Map(s.overlay), deleted: s.deleted && new Set(s.deleted), complete: s.complete }, o.size);
}
