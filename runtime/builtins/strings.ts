// Builtins of the `strings` family, with OPA's (Go's) semantics: indexes and
// lengths in Unicode code points, Go's strings.Trim/TrimSpace/Split/Replace/
// NewReplacer behaviour, and OPA's operand error messages. The trim family lives
// in strings-trim.ts, render_template in strings-template.ts.
import type { BuiltinDef, BuiltinImpl } from './types.js';
import { T } from './types.js';
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';
import { RSet } from '../value/collections.js';
import { asString, asInteger, asObject } from './args.js';
import { BuiltinError, OperandTypeError, operandError } from './errors.js';
import { toDouble } from '../value/number.js';
import { goToLower, goToUpper, isASCII } from './strings-go.js';
import { builtins as trimBuiltins } from './strings-trim.js';
import { renderTemplate } from './strings-template.js';
import { checkSplitPieces, collectionTooLarge, limits } from '../eval/limits.js';

const def = (name: string, args: BuiltinDef['decl']['args'], result: BuiltinDef['decl']['result'], impl: BuiltinImpl, description?: string): BuiltinDef => ({
  decl: { name, args, result, categories: ['strings'], ...(description ? { description } : {}) },
  impl,
});

/** Members of an array or set that must all be strings (OPA's NewOperandElementErr wording). */
function stringMembers(v: Value, pos: number, expected: string): string[] {
  let items: Value[];
  if (Array.isArray(v)) items = v;
  else if (v instanceof RSet) items = v.values();
  else throw operandError(pos, expected, v);
  for (const x of items) {
    if (typeof x !== 'string') {
      const t = typeName(v);
      throw new OperandTypeError(`operand ${pos} must be ${t} of strings but got ${t} containing ${typeName(x)}`);
    }
  }
  return items as string[];
}

/** string | array[string] | set[string] operand of any_prefix_match / any_suffix_match. */
function stringOrStrings(v: Value, pos: number): string[] {
  if (typeof v === 'string') return [v];
  return stringMembers(v, pos, 'one of {string, set, array}');
}

const codePoints = (s: string): string[] => Array.from(s);

/** Code point index of needle in haystack, or -1. */
export function indexOfCodePoint(haystack: string, needle: string, from = 0): number {
  const i = haystack.indexOf(needle, from);
  if (i < 0 || isASCII(haystack)) return i;
  return codePoints(haystack.slice(0, i)).length;
}

/** Go's strings.Split (empty separator: one element per code point). */
export function goSplit(s: string, sep: string): string[] {
  checkSplitPieces(s, sep); // the collection cap, before V8 builds the array
  if (sep === '') return codePoints(s);
  return s.split(sep);
}

/** Go's strings.SplitN. */
export function goSplitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (n < 0) return goSplit(s, sep);
  if (sep === '') {
    const cps = codePoints(s);
    if (cps.length <= n) return cps;
    return [...cps.slice(0, n - 1), cps.slice(n - 1).join('')];
  }
  const out: string[] = [];
  let start = 0;
  while (out.length < n - 1) {
    if (out.length >= limits.maxCollectionSize) collectionTooLarge();
    const i = s.indexOf(sep, start);
    if (i < 0) break;
    out.push(s.slice(start, i));
    start = i + sep.length;
  }
  out.push(s.slice(start));
  return out;
}

/**
 * Go's strings.NewReplacer(pairs...).Replace(s): at each position the first pair
 * (in argument order) whose old string matches wins; replaced text is not
 * re-scanned; an empty old string matches between code points (once each).
 */
export function goReplacer(pairs: [string, string][], s: string): string {
  const byFirst = new Map<number, [string, string][]>();
  let empty: string | undefined;
  let emptyRank = Infinity;
  const rank = new Map<[string, string], number>();
  pairs.forEach((p, idx) => {
    rank.set(p, idx);
    if (p[0] === '') {
      if (empty === undefined) {
        empty = p[1];
        emptyRank = idx;
      }
      return;
    }
    const c = p[0].charCodeAt(0);
    const list = byFirst.get(c);
    if (list) list.push(p);
    else byFirst.set(c, [p]);
  });
  let out = '';
  let last = 0;
  let prevMatchEmpty = false;
  for (let i = 0; i <= s.length; ) {
    let best: [string, string] | undefined;
    const cands = i < s.length ? byFirst.get(s.charCodeAt(i)) : undefined;
    if (cands) for (const p of cands) if (s.startsWith(p[0], i)) { best = p; break; }
    const useEmpty = empty !== undefined && !prevMatchEmpty && (best === undefined || emptyRank < rank.get(best)!);
    if (useEmpty) {
      out += s.slice(last, i) + empty;
      last = i;
      prevMatchEmpty = true;
      continue;
    }
    prevMatchEmpty = false;
    if (best) {
      out += s.slice(last, i) + best[1];
      i += best[0].length;
      last = i;
      continue;
    }
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
  }
  return last < s.length ? out + s.slice(last) : out;
}

function reverseString(s: string): string {
  return isASCII(s) ? s.split('').reverse().join('') : codePoints(s).reverse().join('');
}

function countOccurrences(s: string, sub: string): number {
  if (sub === '') return codePoints(s).length + 1;
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

function substring(s: string, start: number, length: number): string {
  if (start < 0) throw new BuiltinError('negative offset');
  if (s === '') return '';
  if (isASCII(s)) {
    if (start >= s.length) return '';
    if (length < 0) return s.slice(start);
    return s.slice(start, Math.min(s.length, start + length));
  }
  const cps = codePoints(s);
  if (start >= cps.length) return '';
  if (length < 0) return cps.slice(start).join('');
  return cps.slice(start, Math.min(cps.length, start + length)).join('');
}

/** A number operand that must be an integer, clamped to a safe JS range. */
function intArg(v: Value, pos: number): number {
  const n = toDouble(asInteger(v, pos));
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, n));
}

const anyStrings = T.anyOf(T.string, T.arrayOf(T.string), T.setOf(T.string));

export const builtins: BuiltinDef[] = [
  def('concat', [T.string, T.anyOf(T.arrayOf(T.string), T.setOf(T.string))], T.string, ([d, c]) => {
    const delim = asString(d!, 1);
    return stringMembers(c!, 2, 'one of {set, array}').join(delim);
  }, 'Joins a set or array of strings with a delimiter.'),
  def('contains', [T.string, T.string], T.boolean, ([a, b]) => asString(a!, 1).includes(asString(b!, 2)),
    'Returns `true` if the search string is included in the base string'),
  def('startswith', [T.string, T.string], T.boolean, ([a, b]) => asString(a!, 1).startsWith(asString(b!, 2)),
    'Returns true if the search string begins with the base string.'),
  def('endswith', [T.string, T.string], T.boolean, ([a, b]) => asString(a!, 1).endsWith(asString(b!, 2)),
    'Returns true if the search string ends with the base string.'),
  def('indexof', [T.string, T.string], T.number, ([a, b]) => {
    const s = asString(a!, 1);
    const needle = asString(b!, 2);
    if (needle === '') throw new BuiltinError('empty search character');
    return indexOfCodePoint(s, needle);
  }, 'Returns the index of a substring contained inside a string.'),
  def('indexof_n', [T.string, T.string], T.arrayOf(T.number), ([a, b]) => {
    const s = asString(a!, 1);
    const needle = asString(b!, 2);
    if (needle === '') throw new BuiltinError('empty search character');
    const out: Value[] = [];
    // Overlapping matches, as OPA checks every code point position.
    let cpIndex = 0;
    let prev = 0;
    for (let i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + 1)) {
      cpIndex += codePoints(s.slice(prev, i)).length;
      prev = i;
      if (out.length >= limits.maxCollectionSize) collectionTooLarge();
      out.push(cpIndex);
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) i++;
    }
    return out;
  }, 'Returns a list of all the indexes of a substring contained inside a string.'),
  def('lower', [T.string], T.string, ([a]) => goToLower(asString(a!, 1)), 'Returns the input string but with all characters in lower-case.'),
  def('upper', [T.string], T.string, ([a]) => goToUpper(asString(a!, 1)), 'Returns the input string but with all characters in upper-case.'),
  def('split', [T.string, T.string], T.arrayOf(T.string), ([a, b]) => {
    const s = asString(a!, 1);
    const d = asString(b!, 2);
    if (!s.includes(d)) return [s];
    return goSplit(s, d);
  }, 'Split returns an array containing elements of the input string split on a delimiter.'),
  def('strings.split_n', [T.string, T.string, T.number], T.arrayOf(T.string), ([a, b, c]) => {
    const s = asString(a!, 1);
    const d = asString(b!, 2);
    const n = intArg(c!, 3);
    if (n >= 0) return goSplitN(s, d, n);
    const all = goSplit(s, d);
    return all.slice(Math.max(0, all.length + n));
  }, 'Splits the input string on a delimiter into at most |n| parts: the first n for positive n, the last |n| for negative n.'),
  def('replace', [T.string, T.string, T.string], T.string, ([a, b, c]) => {
    const s = asString(a!, 1);
    const old = asString(b!, 2);
    const nw = asString(c!, 3);
    if (old === '') return nw === '' ? s : goReplacer([[old, nw]], s);
    let at = s.indexOf(old);
    if (at < 0) return s;
    checkSplitPieces(s, old);
    // Left to right, without overlaps (Go's strings.Replace), joined by hand: about twice
    // as fast as replaceAll for a few matches (ACI's mount sources), and no `$` patterns.
    let out = '';
    let from = 0;
    do {
      out += s.slice(from, at) + nw;
      from = at + old.length;
      at = s.indexOf(old, from);
    } while (at >= 0);
    return out + s.slice(from);
  }, 'Replace replaces all instances of a sub-string.'),
  def('strings.replace_n', [T.objectOf(T.string, T.string), T.string], T.string, ([a, b]) => {
    const patterns = asObject(a!, 1);
    const s = asString(b!, 2);
    const pairs: [string, string][] = [];
    for (const [k, v] of patterns.entries()) {
      if (typeof k !== 'string') throw new OperandTypeError('operand 1 non-string key found in pattern object');
      if (typeof v !== 'string') throw new OperandTypeError('operand 1 non-string value found in pattern object');
      pairs.push([k, v]);
    }
    return goReplacer(pairs, s);
  }, 'Replaces a string from a list of old, new string pairs.'),
  def('substring', [T.string, T.number, T.number], T.string, ([a, b, c]) => {
    const s = asString(a!, 1);
    const start = intArg(b!, 2);
    const len = intArg(c!, 3);
    return substring(s, start, len);
  }, 'Returns the portion of a string for a given `offset` and a `length`.'),
  def('strings.reverse', [T.string], T.string, ([a]) => reverseString(asString(a!, 1)), 'Reverses a given string.'),
  def('strings.count', [T.string, T.string], T.number, ([a, b]) => countOccurrences(asString(a!, 1), asString(b!, 2)),
    'Returns the number of non-overlapping instances of a substring in a string.'),
  def('strings.any_prefix_match', [anyStrings, anyStrings], T.boolean, ([a, b]) => {
    const strs = stringOrStrings(a!, 1);
    const prefixes = stringOrStrings(b!, 2);
    for (const s of strs) for (const p of prefixes) if (s.startsWith(p)) return true;
    return false;
  }, 'Returns true if any of the search strings begins with any of the base strings.'),
  def('strings.any_suffix_match', [anyStrings, anyStrings], T.boolean, ([a, b]) => {
    const strs = stringOrStrings(a!, 1);
    const suffixes = stringOrStrings(b!, 2);
    for (const s of strs) for (const p of suffixes) if (s.endsWith(p)) return true;
    return false;
  }, 'Returns true if any of the search strings ends with any of the base strings.'),
  def('strings.render_template', [T.string, T.objectOf(T.string, T.any)], T.string, ([a, b]) => {
    const tpl = asString(a!, 1);
    const vars = asObject(b!, 2);
    return renderTemplate(tpl, vars);
  }, 'Renders a templated string with given template variables injected.'),
  ...trimBuiltins,
];

