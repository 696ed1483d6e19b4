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

/**
 * Storage for string keys: instances of a constructor whose prototype has no
 * properties at all, so `props[k]` never finds inherited members (`toString`,
 * `__proto__` are ordinary keys here) while objects of one shape stay fast.
 */
type Props = Record<string, Value>;
const Bare = function Bare(this: Props) {} as unknown as { new (): Props };
Bare.prototype = Object.create(null);

export class RObject {
  /**
   * String keys (the common case), values stored directly. Generated code reads
   * `props[k]` in place (one inline cache per site); everything else uses getStr.
   */
  readonly props: Props = new Bare();
  private count = 0;
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
    return this.count + (this.others?.size ?? 0);
  }

  get(key: Value): Value | undefined {
    if (typeof key === 'string') return this.props[key];
    return this.others?.get(keyOf(key))?.[1];
  }

  /** Fast path for string keys (most lookups). */
  getStr(key: string): Value | undefined {
    return this.props[key];
  }

  has(key: Value): boolean {
    if (typeof key === 'string') return key in this.props;
    return this.others?.has(keyOf(key)) ?? false;
  }

  /** Mutating insert: use only while building a fresh object. */
  set(key: Value, value: Value): this {
    if (typeof key === 'string') {
      if (!(key in this.props)) this.count++;
      this.props[key] = value;
    } else (this.others ??= new Map()).set(keyOf(key), [key, value]);
    this.sortedCache = this.keysCache = this.valuesCache = undefined;
    this.hashKey = this.taggedKey = undefined;
    return this;
  }

  delete(key: Value): boolean {
    this.sortedCache = this.keysCache = this.valuesCache = undefined;
    this.hashKey = this.taggedKey = undefined;
    if (typeof key === 'string') {
      if (!(key in this.props)) return false;
      delete this.props[key];
      this.count--;
      return true;
    }
    return this.others?.delete(keyOf(key)) ?? false;
  }

  /** Entries in Rego key order. */
  entries(): [Value, Value][] {
    if (this.sortedCache === undefined) {
      const strs: [Value, Value][] = [];
      for (const k in this.props) strs.push([k, this.props[k]!]);
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

  private keysCache: Value[] | undefined;
  private valuesCache: Value[] | undefined;

  /** Keys in Rego order (cached; do not mutate). */
  keys(): Value[] {
    const e = this.entries();
    if (this.keysCache === undefined || this.keysCache.length !== e.length) this.keysCache = e.map((x) => x[0]);
    return this.keysCache;
  }

  /** Values in key order (cached; do not mutate). */
  values(): Value[] {
    const e = this.entries();
    if (this.valuesCache === undefined || this.valuesCache.length !== e.length) this.valuesCache = e.map((x) => x[1]);
    return this.valuesCache;
  }

  /** Entries in insertion order (cheaper when order does not matter). */
  *unorderedEntries(): IterableIterator<[Value, Value]> {
    for (const k in this.props) yield [k, this.props[k]!];
    if (this.others) yield* this.others.values();
  }

  /** Visit entries in insertion order without allocating; return true to stop. */
  forEachUnordered(fn: (k: Value, v: Value) => boolean): boolean {
    for (const k in this.props) if (fn(k, this.props[k]!)) return true;
    if (this.others) for (const [k, v] of this.others.values()) if (fn(k, v)) return true;
    return false;
  }

  clone(): RObject {
    const o = new RObject();
    for (const k in this.props) o.props[k] = this.props[k]!;
    o.count = this.count;
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
      this.sortedCache = this.unorderedCache = undefined;
      this.hashKey = this.taggedKey = undefined;
    }
    return this;
  }

  delete(v: Value): boolean {
    this.sortedCache = this.unorderedCache = undefined;
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

  private unorderedCache: Value[] | undefined;

  /** Members in insertion order as an array (cached; do not mutate). */
  unorderedArray(): Value[] {
    if (this.unorderedCache === undefined || this.unorderedCache.length !== this.map.size) this.unorderedCache = [...this.map.values()];
    return this.unorderedCache;
  }

  clone(): RSet {
    const s = new RSet();
    for (const [h, v] of this.map) s.map.set(h, v);
    return s;
  }
}
