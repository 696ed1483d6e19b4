// Regular-expression builtins with Go regexp (RE2) semantics via re2js: linear
// time for any pattern, compiled patterns cached (bounded LRU, regex-cache.ts),
// and Go's error texts (`error parsing regexp: …`). regex.globs_match is in
// regex-globs.ts; regex.template_match follows OPA's gorilla/mux-derived compiler.
import type { BuiltinDef, BuiltinImpl } from './types.js';
import { T } from './types.js';
import type { Value } from '../value/value.js';
import { asString, asInteger } from './args.js';
import { BuiltinError } from './errors.js';
import { toDouble } from '../value/number.js';
import { goQuote } from './strings-go.js';
import { compileRegex, findAllIndex, quoteMeta, regexReplaceAll, regexSplit, regexTest } from './regex-cache.js';
import { globsIntersect } from './regex-globs.js';

const def = (name: string, args: BuiltinDef['decl']['args'], result: BuiltinDef['decl']['result'], impl: BuiltinImpl, extra: Partial<BuiltinDef['decl']> = {}): BuiltinDef => ({
  decl: { name, args, result, categories: ['regex'], ...extra },
  impl,
});

const intArg = (v: Value, pos: number): number => {
  const n = toDouble(asInteger(v, pos));
  return n < 0 ? -1 : Math.min(n, Number.MAX_SAFE_INTEGER);
};

const regexMatch: BuiltinImpl = ([p, v]) => {
  const pattern = asString(p!, 1);
  const value = asString(v!, 2);
  return regexTest(pattern, value);
};

/** OPA's delimiterIndices: top-level delimiter spans, or an error for unbalanced ones. */
function delimiterIndices(s: string, open: string, close: string): number[] {
  let level = 0;
  let idx = 0;
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === open) {
      if (++level === 1) idx = i;
    } else if (s[i] === close) {
      if (--level === 0) out.push(idx, i + 1);
      else if (level < 0) throw new BuiltinError(`unbalanced braces in ${goQuote(s)}`);
    }
  }
  if (level !== 0) throw new BuiltinError(`unbalanced braces in ${goQuote(s)}`);
  return out;
}

/** OPA's compileRegexTemplate: literal text quoted, each delimited part a group. */
export function templatePattern(tpl: string, open: string, close: string): string {
  const idxs = delimiterIndices(tpl, open, close);
  let pattern = '^';
  let end = 0;
  for (let i = 0; i < idxs.length; i += 2) {
    const raw = tpl.slice(end, idxs[i]);
    end = idxs[i + 1]!;
    const patt = tpl.slice(idxs[i]! + 1, end - 1);
    pattern += `${quoteMeta(raw)}(${patt})`;
    compileRegex(`^${patt}$`);
  }
  return pattern + quoteMeta(tpl.slice(end)) + '$';
}

const byteLen = (s: string): number => Buffer.byteLength(s, 'utf8');

export const builtins: BuiltinDef[] = [
  def('regex.match', [T.string, T.string], T.boolean, regexMatch, { description: 'Matches a string against a regular expression.' }),
  def('re_match', [T.string, T.string], T.boolean, regexMatch, { deprecated: true, description: 'Matches a string against a regular expression.' }),
  def('regex.is_valid', [T.string], T.boolean, ([p]) => {
    if (typeof p !== 'string') return false;
    try {
      compileRegex(p);
      return true;
    } catch {
      return false;
    }
  }, { description: 'Checks if a string is a valid regular expression.' }),
  def('regex.split', [T.string, T.string], T.arrayOf(T.string), ([p, v]) => {
    const pattern = asString(p!, 1);
    const value = asString(v!, 2);
    return regexSplit(compileRegex(pattern), value);
  }, { description: 'Splits the input string by the occurrences of the given pattern.' }),
  def('regex.find_n', [T.string, T.string, T.number], T.arrayOf(T.string), ([p, v, n]) => {
    const pattern = asString(p!, 1);
    const value = asString(v!, 2);
    const count = intArg(n!, 3);
    const re = compileRegex(pattern);
    return findAllIndex(re, value, count, false).map((m) => value.slice(m[0], m[1]));
  }, { description: 'Returns the specified number of matches when matching the input against the pattern.' }),
  def('regex.find_all_string_submatch_n', [T.string, T.string, T.number], T.arrayOf(T.arrayOf(T.string)), ([p, v, n]) => {
    const pattern = asString(p!, 1);
    const value = asString(v!, 2);
    const count = intArg(n!, 3);
    const re = compileRegex(pattern);
    return findAllIndex(re, value, count, true).map((m) => {
      const groups: Value[] = [];
      for (let k = 0; k + 1 < m.length; k += 2) groups.push(m[k]! >= 0 ? value.slice(m[k], m[k + 1]) : '');
      return groups;
    });
  }, { description: 'Returns all successive matches of the expression.' }),
  def('regex.replace', [T.string, T.string, T.string], T.string, ([s, p, v]) => {
    const base = asString(s!, 1);
    const pattern = asString(p!, 2);
    const value = asString(v!, 3);
    return regexReplaceAll(compileRegex(pattern), base, value);
  }, { description: 'Find and replaces the text using the regular expression pattern.' }),
  def('regex.template_match', [T.string, T.string, T.string, T.string], T.boolean, ([t, v, s, e]) => {
    const tpl = asString(t!, 1);
    const value = asString(v!, 2);
    const start = asString(s!, 3);
    const end = asString(e!, 4);
    // OPA reports the start delimiter's length in both messages.
    if (byteLen(start) !== 1) throw new BuiltinError(`start delimiter has to be exactly one character long but is ${byteLen(start)} long`);
    if (byteLen(end) !== 1) throw new BuiltinError(`end delimiter has to be exactly one character long but is ${byteLen(start)} long`);
    return regexTest(templatePattern(tpl, start, end), value);
  }, { description: 'Matches a string against a pattern, where there pattern may be glob-like' }),
  def('regex.globs_match', [T.string, T.string], T.boolean, ([a, b]) => {
    const g1 = asString(a!, 1);
    const g2 = asString(b!, 2);
    return globsIntersect(g1, g2);
  }, { description: 'Checks if the intersection of two glob-style regular expressions matches a non-empty set of non-empty strings.' }),
];
