// Rego's composite values that JS has no direct form for: objects whose keys may be
// any value, and sets. Both hash their members by `keyOf`, which is the member's
// own text for strings (the common case) and a tagged canonical encoding otherwise.
// Iteration follows Rego's sort order, as OPA iterates objects and sets sorted.
import type { Value } from './value.js';
import { compare, compareStrings } from './compare.js';
import { canonicalKey } from './key.js';

/** Hash key for a member: strings map to themselves unless they could collide with tags. */
export function keyOf(v: Value): string {
  if (typeof v === 'string') return v.length > 0 && v.charCodeAt(0) === 0 ? '\u0000s' + v : v;
  // Objects and sets cache their tagged key: the same string object each time,
  // so the Map reuses its cached hash.
  if (v instanceof RObject || v instanceof RSet) {
    if (v.taggedKey === undefined) v.taggedKey = '\u0000' + canonicalKey(v);
    return v.taggedKey;
  }
  return '\u0000' + canonicalKey(v);
}

export class RObject {
  /** String keys (the common case), values stored directly. */
  private readonly strs = new Map<string, Value>();
  /** Other keys, by their hash key. */
  private others: Map<string, [Value, Value]> | undefined;
  private sortedCache: [Value, Value][] | undefined;
  /** Cached canonical key (see key.ts) and its tagged form (keyOf); cleared by every mutation. */
  hashKey: string | undefined;
  taggedKey: string | undefined;

  static fromEntries(entries: Iterable<[Value, Value]>): RObject {
    const o = new RObject();
    for (const [k, v] of entries) o.set(k, v);
    return o;
  }

  get size(): number {
    return this.strs.size + (this.others?.size ?? 0);
  }

  get(key: Value): Value | undefined {
    if (typeof key === 'string') return this.strs.get(key);
    return this.others?.get(keyOf(key))?.[1];
  }

  /** Fast path for string keys (most lookups). */
  getStr(key: string): Value | undefined {
    return this.strs.get(key);
  }

  has(key: Value): boolean {
    if (typeof key === 'string') return this.strs.has(key);
    return this.others?.has(keyOf(key)) ?? false;
  }

  /** Mutating insert: use only while building a fresh object. */
  set(key: Value, value: Value): this {
    if (typeof key === 'string') this.strs.set(key, value);
    else (this.others ??= new Map()).set(keyOf(key), [key, value]);
    this.sortedCache = undefined;
    this.hashKey = this.taggedKey = undefined;
    return this;
  }

  delete(key: Value): boolean {
    this.sortedCache = undefined;
    this.hashKey = this.taggedKey = undefined;
    if (typeof key === 'string') return this.strs.delete(key);
    return this.others?.delete(keyOf(key)) ?? false;
  }

  /** Entries in Rego key order. */
  entries(): [Value, Value][] {
    if (this.sortedCache === undefined) {
      const strs: [Value, Value][] = [];
      for (const [k, v] of this.strs) strs.push([k, v]);
      strs.sort((x, y) => compareStrings(x[0] as string, y[0] as string));
      if (this.others && this.others.size > 0) {
        const rest = [...this.others.values()];
        const all = strs.concat(rest);
        all.sort((x, y) => compare(x[0], y[0]));
        this.sortedCache = all;
      } else this.sortedCache = strs;
    }
    return this.sortedCache;
  }

  keys(): Value[] {
    return this.entries().map((e) => e[0]);
  }

  values(): Value[] {
    return this.entries().map((e) => e[1]);
  }

  /** Entries in insertion order (cheaper when order does not matter). */
  *unorderedEntries(): IterableIterator<[Value, Value]> {
    for (const [k, v] of this.strs) yield [k, v];
    if (this.others) yield* this.others.values();
  }

  /** Visit entries in insertion order without allocating; return true to stop. */
  forEachUnordered(fn: (k: Value, v: Value) => boolean): boolean {
    for (const [k, v] of this.strs) if (fn(k, v)) return true;
    if (this.others) for (const [k, v] of this.others.values()) if (fn(k, v)) return true;
    return false;
  }

  clone(): RObject {
    const o = new RObject();
    for (const [k, v] of this.strs) o.strs.set(k, v);
    if (this.others) o.others = new Map(this.others);
    return o;
  }
}

export class RSet {
  private readonly map = new Map<string, Value>();
  private sortedCache: Value[] | undefined;
  /** Cached canonical key (see key.ts) and its tagged form (keyOf); cleared by every mutation. */
  hashKey: string | undefined;
  taggedKey: string | undefined;

  static of(values: Iterable<Value>): RSet {
    const s = new RSet();
    for (const v of values) s.add(v);
    return s;
  }

  get size(): number {
    return this.map.size;
  }

  has(v: Value): boolean {
    return this.map.has(keyOf(v));
  }

  /** Mutating insert: use only while building a fresh set. */
  add(v: Value): this {
    const n = this.map.size;
    this.map.set(keyOf(v), v);
    if (this.map.size !== n) {
      this.sortedCache = undefined;
      this.hashKey = this.taggedKey = undefined;
    }
    return this;
  }

  delete(v: Value): boolean {
    this.sortedCache = undefined;
    this.hashKey = this.taggedKey = undefined;
    return this.map.delete(keyOf(v));
  }

  /** Member hash keys (unordered), for fast set algebra. */
  hashes(): IterableIterator<string> {
    return this.map.keys();
  }

  /** Members in Rego sort order. */
  values(): Value[] {
    if (this.sortedCache === undefined) this.sortedCache = [...this.map.values()].sort(compare);
    return this.sortedCache;
  }

  unorderedValues(): IterableIterator<Value> {
    return this.map.values();
  }

  clone(): RSet {
    const s = new RSet();
    for (const [h, v] of this.map) s.map.set(h, v);
    return s;
  }
}
