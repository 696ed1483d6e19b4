// Rego's composite values that JS has no direct form for: objects whose keys may be
// any value, and sets. Both hash their members by `keyOf`, which is the member's
// own text for strings (the common case) and a tagged canonical encoding otherwise.
// Iteration follows Rego's sort order, as OPA iterates objects and sets sorted.
// Growing past the evaluation collection cap (runtime/eval/limits.ts) throws.
import type { Value } from './value.js';
import { compare, compareStrings, equal } from './compare.js';
import { canonicalKey, storedArrayKey } from './key.js';
import { collectionTooLarge, limits } from '../eval/limits.js';

/** Hash key for a member: strings map to themselves unless they could collide with tags. */
export function keyOf(v: Value): string {
  if (typeof v === 'string') return v.length > 0 && v.charCodeAt(0) === 0 ? '\u0000s' + v : v;
  // Objects and sets cache their tagged key: the same string object each time,
  // so the Map reuses its cached hash.
  if (v instanceof RObject || v instanceof RSet) {
    if (v.taggedKey === undefined) v.taggedKey = '\u0000' + canonicalKey(v);
    return v.taggedKey;
  }
  return '\u0000' + (Array.isArray(v) ? storedArrayKey(v) : canonicalKey(v));
}

/**
 * Storage for string keys: instances of a constructor whose prototype has no
 * properties at all, so `props[k]` never finds inherited members (`toString`,
 * `__proto__` are ordinary keys here) while objects of one shape stay fast.
 */
type Props = Record<string, Value>;
const Bare = function Bare(this: Props) {} as unknown as { new (): Props };
Bare.prototype = Object.create(null);

/** Objects whose members are not loaded yet (see RObject.lazy), with their loaders. */
const lazyObjects = new WeakMap<RObject, () => void>();

/** Load a lazy object's members now (its count is -1 until then). */
function loadLazy(o: RObject): void {
  lazyObjects.get(o)?.();
}

/** Traps forwarding every operation to the props `ensure` loads on first use. */
function lazyHandler(ensure: () => Props, known: Set<string> | undefined): ProxyHandler<Props> {
  // With the keys known, looking up a missing key needs no loading.
  const absent = (k: string | symbol): boolean => known !== undefined && typeof k === 'string' && !known.has(k);
  return {
    get: (_t, k) => (absent(k) ? undefined : (ensure() as Record<string | symbol, Value>)[k]),
    has: (_t, k) => !absent(k) && k in ensure(),
    ownKeys: () => Reflect.ownKeys(ensure()),
    getOwnPropertyDescriptor: (_t, k) => Reflect.getOwnPropertyDescriptor(ensure(), k),
    set: (_t, k, v) => Reflect.set(ensure(), k, v),
    deleteProperty: (_t, k) => Reflect.deleteProperty(ensure(), k),
    defineProperty: (_t, k, d) => Reflect.defineProperty(ensure(), k, d),
  };
}

/** RObject's caches; see RObject.ext. */
interface ObjectCaches {
  sorted: [Value, Value][] | undefined;
  keys: Value[] | undefined;
  values: Value[] | undefined;
  hashKey: string | undefined;
  taggedKey: string | undefined;
}

function newCaches(): ObjectCaches {
  return { sorted: undefined, keys: undefined, values: undefined, hashKey: undefined, taggedKey: undefined };
}

export class RObject {
  /**
   * String keys (the common case), values stored directly. Generated code reads
   * `props[k]` in place (one inline cache per site); everything else uses getStr.
   */
  readonly props: Props;
  /** Number of string keys; -1 while a lazy object is not loaded. */
  private count: number;
  /** Other keys, by their hash key. */
  private others: Map<string, [Value, Value]> | undefined;
  /**
   * Caches (sorted entries, keys, values, hash keys), in a side object made on
   * first use: most objects of a large data document never need one, and three
   * fields per object instead of eight keep such documents small.
   */
  private ext: ObjectCaches | undefined;

  /** Cached canonical key (see key.ts); cleared by every mutation. */
  get hashKey(): string | undefined {
    return this.ext?.hashKey;
  }
  set hashKey(k: string | undefined) {
    (this.ext ??= newCaches()).hashKey = k;
  }
  /** Cached tagged key (keyOf); cleared by every mutation. */
  get taggedKey(): string | undefined {
    return this.ext?.taggedKey;
  }
  set taggedKey(k: string | undefined) {
    (this.ext ??= newCaches()).taggedKey = k;
  }

  /** `props` (a null-prototype-like object of `count` string keys) is adopted, not copied. */
  constructor(props?: Props, count = 0) {
    this.props = props ?? new Bare();
    this.count = count;
  }

  /**
   * Wrap a plain object (e.g. from JSON.parse) in place: its prototype becomes the
   * property-less one of `props`, so no member is copied. Values must already be Values.
   */
  static adopt(plain: object): RObject {
    Object.setPrototypeOf(plain, Bare.prototype);
    return new RObject(plain as Props, Object.keys(plain).length);
  }

  /** A fresh property-less object for `adopt` (keys assigned directly). */
  static bareProps(): Record<string, Value> {
    return new Bare();
  }

  /**
   * An object whose members `load` produces on first use of any member, key or
   * size (the main thread's view of a large document that lives in the workers).
   * With `keys` (all its keys), looking up an absent key does not load it.
   */
  static lazy(load: () => RObject, keys?: Iterable<string>): RObject {
    const o = new RObject(undefined, -1);
    let real: Props | undefined;
    const ensure = (): Props => {
      if (real === undefined) {
        const r = load();
        real = r.props;
        lazyObjects.delete(o);
        const w = o as unknown as { props: Props; count: number; others: RObject['others'] };
        w.props = real;
        w.count = r.count;
        w.others = r.others;
      }
      return real;
    };
    (o as unknown as { props: Props }).props = new Proxy(new Bare(), lazyHandler(ensure, keys === undefined ? undefined : new Set(keys)));
    lazyObjects.set(o, () => void ensure());
    return o;
  }

  /** True for a lazy object whose members are not loaded yet. */
  static isLazy(v: unknown): boolean {
    return v instanceof RObject && lazyObjects.has(v);
  }

  static fromEntries(entries: Iterable<[Value, Value]>): RObject {
    const o = new RObject();
    for (const [k, v] of entries) o.set(k, v);
    return o;
  }

  get size(): number {
    if (this.count < 0) loadLazy(this);
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
    if (this.count < 0) loadLazy(this);
    if (typeof key === 'string') {
      // The evaluation collection cap (runtime/eval/limits.ts), checked as the object grows.
      if (!(key in this.props) && ++this.count > limits.maxCollectionSize) collectionTooLarge();
      this.props[key] = value;
    } else if ((this.others ??= new Map()).set(keyOf(key), [key, value]).size > limits.maxCollectionSize) collectionTooLarge();
    this.ext = undefined;
    return this;
  }

  delete(key: Value): boolean {
    if (this.count < 0) loadLazy(this);
    this.ext = undefined;
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
    const ext = (this.ext ??= newCaches());
    if (ext.sorted === undefined) {
      const strs: [Value, Value][] = [];
      for (const k in this.props) strs.push([k, this.props[k]!]);
      strs.sort((x, y) => compareStrings(x[0] as string, y[0] as string));
      if (this.others && this.others.size > 0) {
        const rest = [...this.others.values()];
        const all = strs.concat(rest);
        all.sort((x, y) => compare(x[0], y[0]));
        ext.sorted = all;
      } else ext.sorted = strs;
    }
    return ext.sorted;
  }

  /** Keys in Rego order (cached; do not mutate). */
  keys(): Value[] {
    const e = this.entries();
    const ext = this.ext!;
    if (ext.keys === undefined || ext.keys.length !== e.length) ext.keys = e.map((x) => x[0]);
    return ext.keys;
  }

  /** Values in key order (cached; do not mutate). */
  values(): Value[] {
    const e = this.entries();
    const ext = this.ext!;
    if (ext.values === undefined || ext.values.length !== e.length) ext.values = e.map((x) => x[1]);
    return ext.values;
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

  /** Whether every entry of this object is in `b` with an equal value (with equal sizes: the objects are equal). */
  entriesIn(b: RObject): boolean {
    if (this.count < 0) loadLazy(this);
    const props = this.props;
    for (const k in props) {
      const w = b.props[k];
      if (w === undefined || !equal(props[k]!, w)) return false;
    }
    if (this.others) {
      for (const [k, v] of this.others.values()) {
        const w = b.get(k);
        if (w === undefined || !equal(v, w)) return false;
      }
    }
    return true;
  }

  clone(): RObject {
    if (this.count < 0) loadLazy(this);
    const o = new RObject();
    for (const k in this.props) o.props[k] = this.props[k]!;
    o.count = this.count;
    if (this.others) o.others = new Map(this.others);
    return o;
  }
}

/** Up to this many members a set keeps a plain list and compares members by `equal`. */
const SMALL_SET = 8;
/** Lookups of composite values a small set answers by `equal` before it hashes its members. */
const PROBES_BEFORE_HASHING = 32;
/** The list of every empty set: never written (add copies it first). */
const NO_MEMBERS: Value[] = [];

/**
 * A set. Small sets (most rule and comprehension results: violations, labels) keep
 * their members in a list and find duplicates with `equal`, so a composite member
 * (an object like `{"msg": …}`) is never given a canonical key unless the set grows
 * past SMALL_SET, is hashed itself, or is a member of a hashed collection.
 */
export class RSet {
  /** Members by hash key, once the set is large; undefined while `list` holds them. */
  private map: Map<string, Value> | undefined;
  /** Members in insertion order while the set is small (the shared NO_MEMBERS until the first add). */
  private list: Value[] = NO_MEMBERS;
  private sortedCache: Value[] | undefined;
  private unorderedCache: Value[] | undefined;
  /** Lookups of non-string values made while small (see has). */
  private probes = 0;
  /** Cached canonical key (see key.ts) and its tagged form (keyOf); cleared by every mutation. */
  hashKey: string | undefined;
  taggedKey: string | undefined;

  static of(values: Iterable<Value>): RSet {
    const s = new RSet();
    for (const v of values) s.add(v);
    return s;
  }

  get size(): number {
    return this.map === undefined ? this.list.length : this.map.size;
  }

  has(v: Value): boolean {
    if (this.map !== undefined) return this.map.has(keyOf(v));
    // A small set probed again and again with composite values (`input.x in data.s` on
    // every decision) hashes its members once, so no lookup keeps paying `equal` per member.
    if (typeof v !== 'string' && this.list.length > 1 && ++this.probes > PROBES_BEFORE_HASHING) {
      this.hashMembers();
      return this.map!.has(keyOf(v));
    }
    return this.indexOf(v) >= 0;
  }

  /** From the list to the Map by hash key (same members, same order: no cache changes). */
  private hashMembers(): void {
    const m = new Map<string, Value>();
    for (const x of this.list) m.set(keyOf(x), x);
    this.map = m;
    this.list = NO_MEMBERS;
  }

  private indexOf(v: Value): number {
    const l = this.list;
    if (typeof v === 'string') {
      for (let i = 0; i < l.length; i++) if (l[i] === v) return i;
    } else for (let i = 0; i < l.length; i++) if (equal(l[i]!, v)) return i;
    return -1;
  }

  /** Mutating insert: use only while building a fresh set. */
  add(v: Value): this {
    if (this.map === undefined) {
      if (this.indexOf(v) >= 0) return this;
      if (this.list.length < SMALL_SET) {
        if (this.list.length >= limits.maxCollectionSize) collectionTooLarge();
        // The list may be shared (NO_MEMBERS, or handed out by unorderedArray()): copy before writing.
        if (this.list === NO_MEMBERS || this.unorderedCache === this.list) this.list = this.list.slice();
        this.list.push(v);
        this.changed();
        return this;
      }
      this.hashMembers();
    }
    const n = this.map!.size;
    this.map!.set(keyOf(v), v);
    if (this.map!.size !== n) {
      if (n >= limits.maxCollectionSize) collectionTooLarge();
      this.changed();
    }
    return this;
  }

  private changed(): void {
    this.sortedCache = this.unorderedCache = undefined;
    this.hashKey = this.taggedKey = undefined;
  }

  delete(v: Value): boolean {
    this.changed();
    if (this.map !== undefined) return this.map.delete(keyOf(v));
    const i = this.indexOf(v);
    if (i < 0) return false;
    this.list = this.list.slice();
    this.list.splice(i, 1);
    return true;
  }

  /** Member hash keys (unordered), for fast set algebra. */
  hashes(): IterableIterator<string> {
    return this.map === undefined ? this.list.map(keyOf).values() : this.map.keys();
  }

  /** Members in Rego sort order. */
  values(): Value[] {
    if (this.sortedCache === undefined) this.sortedCache = (this.map === undefined ? this.list.slice() : [...this.map.values()]).sort(compare);
    return this.sortedCache;
  }

  unorderedValues(): IterableIterator<Value> {
    return this.map === undefined ? this.list.values() : this.map.values();
  }

  /** Members in insertion order as an array (cached; do not mutate). */
  unorderedArray(): Value[] {
    if (this.map === undefined) return (this.unorderedCache = this.list);
    if (this.unorderedCache === undefined || this.unorderedCache.length !== this.map.size) this.unorderedCache = [...this.map.values()];
    return this.unorderedCache;
  }

  clone(): RSet {
    const s = new RSet();
    if (this.map !== undefined) s.map = new Map(this.map);
    else s.list = this.list.slice();
    return s;
  }
}
