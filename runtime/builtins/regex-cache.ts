// Compiled RE2 patterns (re2js: linear-time matching, Go regexp syntax) behind a
// one-entry "last pattern" check and a bounded cache (CLOCK eviction); match tests use a native
// RegExp where regex-native.ts proves both agree, kept in a larger cache of their own once
// re2js has accepted the pattern. Plus Go's regexp helpers the builtins need: FindAll*-style
// match iteration, Split, ReplaceAllString with $-expansion, and QuoteMeta.
// Indexes are UTF-16 offsets into JS strings, which slice on code point boundaries.
// re2js loads on the first pattern compiled.
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { BuiltinError } from './errors.js';
import { collectionTooLarge, limits } from '../eval/limits.js';
import { nativeRegex, type NativeRegex } from './regex-native.js';

let re2js: typeof import('re2js').RE2JS | undefined;
const RE2 = (): typeof import('re2js').RE2JS => (re2js ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS);

const CACHE_MAX = 256;
/**
 * Native forms of patterns re2js has accepted, kept after their compiled program left
 * the cache: about 1 KB each against 17 KB for re2js's program, and a test with one
 * costs no compile. A policy testing more patterns than CACHE_MAX per decision (OPA's
 * REST authz benchmark: 1,000 path patterns per token) otherwise compiled every one of
 * them with re2js on every decision (80–100 µs each).
 */
const NATIVE_MAX = 4096;

/** A compiled pattern: re2js's, and a native RegExp when both provably agree (regex-native.ts). */
interface Entry {
  /** The compiled pattern, or undefined when it did not compile (then `error`). */
  re: RE2JS | undefined;
  error: string;
  /** Computed on the first test(); null when the pattern has no native form. */
  native: NativeRegex | null | undefined;
  /** Looked up since the eviction hand last passed it (CLOCK: a hit costs no reordering). */
  used: boolean;
}

const cache = new Map<string, Entry>();
/** Pattern → its native form, for patterns re2js compiled without error (oldest dropped first when full). */
const natives = new Map<string, NativeRegex>();
/** The pattern looked up last, checked before the cache (a policy usually repeats one). */
let lastPattern: string | undefined;
let lastEntry: Entry | undefined;

/** Make room for one entry: the oldest not used since last passed goes; used ones get a second chance. */
function evict(): void {
  for (const [k, e] of cache) {
    cache.delete(k);
    if (!e.used) return;
    e.used = false;
    cache.set(k, e);
  }
}

function entry(pattern: string): Entry {
  if (pattern === lastPattern) return lastEntry!;
  let e = cache.get(pattern);
  if (e !== undefined) e.used = true;
  else {
    e = { re: undefined, error: '', native: undefined, used: false };
    try {
      e.re = RE2().compile(pattern);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      e.error = msg.startsWith('error parsing regexp') ? msg : `error parsing regexp: ${msg}`;
    }
    if (cache.size >= CACHE_MAX) evict();
    cache.set(pattern, e);
  }
  if (e.re === undefined) throw new BuiltinError(e.error);
  lastPattern = pattern;
  lastEntry = e;
  return e;
}

/** Compile a Go-syntax pattern; parse errors become BuiltinErrors with Go's text. */
export function compileRegex(pattern: string): RE2JS {
  return entry(pattern).re!;
}

/**
 * Whether `s` has a match of the Go-syntax pattern (Regexp.MatchString): natively
 * when the pattern and input allow it (regex-native.ts), else with re2js.
 */
export function regexTest(pattern: string, s: string): boolean {
  if (pattern !== lastPattern) {
    const known = natives.get(pattern);
    if (known !== undefined && nativeFits(known, s)) return known.re.test(s);
  }
  const e = entry(pattern);
  if (e.native === undefined) {
    // A pattern whose program was compiled again after eviction keeps its native form.
    const kept = natives.get(pattern);
    e.native = kept ?? nativeRegex(pattern) ?? null;
    if (kept === undefined && e.native !== null) {
      if (natives.size >= NATIVE_MAX) natives.delete(natives.keys().next().value!);
      natives.set(pattern, e.native);
    }
  }
  const n = e.native;
  if (n !== null && nativeFits(n, s)) return n.re.test(s);
  return e.re!.test(s);
}

/** Whether the native form may test `s` (its length bound, well-formed text when it needs it). */
function nativeFits(n: NativeRegex, s: string): boolean {
  return s.length <= n.maxLength && (!n.wellFormedOnly || (s as unknown as { isWellFormed(): boolean }).isWellFormed());
}

/** Go's FindAllStringSubmatchIndex(s, n): flat [start, end, g1s, g1e, …] per match (-1 = unset). */
export function findAllIndex(re: RE2JS, s: string, n: number, submatches: boolean): number[][] {
  if (n === 0) return [];
  const r = re.re2();
  // More matches than the collection cap (possible only in a longer string) would
  // build an array V8 cannot hold without aborting the process: ask for one more.
  const cap = limits.maxCollectionSize;
  const bounded = s.length > cap && (n < 0 || n > cap);
  const want = bounded ? cap + 1 : n < 0 ? -1 : n;
  const res = (submatches ? r.findAllSubmatchIndex(s, want) : r.findAllIndex(s, want)) as number[][] | null;
  if (bounded && res && res.length > cap) collectionTooLarge();
  return res ?? [];
}

/** Go's Regexp.Split(s, -1). */
export function regexSplit(re: RE2JS, s: string): string[] {
  if (re.pattern().length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of findAllIndex(re, s, -1, false)) {
    end = m[0]!;
    if (m[1] !== 0) out.push(s.slice(beg, end));
    beg = m[1]!;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

const isWordRune = (ch: string): boolean => /^[\p{L}\p{Nd}\p{Nl}\p{No}_]$/u.test(ch);

/** Go's extract: a `$name`, `${name}` reference at the start of str. */
function extractRef(str: string): { name: string; num: number; rest: string } | undefined {
  if (str === '') return undefined;
  let brace = false;
  if (str[0] === '{') {
    brace = true;
    str = str.slice(1);
  }
  let i = 0;
  for (const ch of str) {
    if (!isWordRune(ch)) break;
    i += ch.length;
  }
  if (i === 0) return undefined;
  const name = str.slice(0, i);
  if (brace) {
    if (i >= str.length || str[i] !== '}') return undefined;
    i++;
  }
  let num = /^\d+$/.test(name) && name.length <= 9 ? Number(name) : -1;
  if (name[0] === '0' && name.length > 1) num = -1;
  return { name, num, rest: str.slice(i) };
}

/** Go's Regexp.expand of a replacement template for one match. */
function expand(re: RE2JS, template: string, src: string, m: number[]): string {
  let out = '';
  const group = (k: number): string => (2 * k + 1 < m.length && m[2 * k]! >= 0 ? src.slice(m[2 * k], m[2 * k + 1]) : '');
  for (;;) {
    const d = template.indexOf('$');
    if (d < 0) break;
    out += template.slice(0, d);
    template = template.slice(d + 1);
    if (template[0] === '$') {
      out += '$';
      template = template.slice(1);
      continue;
    }
    const ref = extractRef(template);
    if (!ref) {
      out += '$';
      continue;
    }
    template = ref.rest;
    if (ref.num >= 0) out += group(ref.num);
    else {
      const idx = re.namedGroups()[ref.name];
      if (idx !== undefined) out += group(idx);
    }
  }
  return out + template;
}

/** Go's Regexp.ReplaceAllString(src, repl). */
export function regexReplaceAll(re: RE2JS, src: string, repl: string): string {
  const needGroups = repl.includes('$');
  let out = '';
  let last = 0;
  for (const m of findAllIndex(re, src, -1, needGroups)) {
    out += src.slice(last, m[0]) + (needGroups ? expand(re, repl, src, m) : repl);
    last = m[1]!;
  }
  return out + src.slice(last);
}

/** Go's regexp.QuoteMeta. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}
