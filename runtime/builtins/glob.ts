// glob.match and glob.quote_meta with gobwas/glob (v0.2) semantics: `*` matches
// any run of non-delimiter runes, `**` any run of runes, `?` one non-delimiter
// rune, `[abc]` / `[!abc]` / `[a-z]` / `[!a-z]` one rune (delimiters included),
// `{a,b}` alternatives, `\` escapes. Patterns are parsed with gobwas's lexer rules
// and error texts, then translated into an anchored RE2 pattern (re2js, linear
// time) and cached. Delimiters: null = none, [] = ["."], otherwise single runes.
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';
import { asString } from './args.js';
import { BuiltinError, OperandTypeError, operandError } from './errors.js';
import { regexTest } from './regex-cache.js';

const reRune = (r: number): string => `\\x{${r.toString(16)}}`;

/** Character class body for the delimiters. */
const delimClass = (delims: number[]): string => delims.map(reRune).join('');

/** Translate a gobwas glob into an RE2 pattern (throws BuiltinError with gobwas's messages). */
export function globToRegex(pattern: string, delims: number[]): string {
  const runes: number[] = [];
  for (const ch of pattern) {
    const r = ch.codePointAt(0)!;
    if (r === 0) break; // gobwas v0.2 treats NUL as the end of input
    runes.push(r);
  }
  const any = delims.length ? `[^${delimClass(delims)}]` : '(?s:.)';
  let out = '';
  let depth = 0;
  let i = 0;
  const read = (): number | undefined => {
    const r = runes[i];
    if (r === 0xfffd) throw new BuiltinError('could not read rune');
    if (r !== undefined) i++;
    return r;
  };
  /** fetchText: runes up to a breaker, with `\` escapes. */
  const text = (breakers: number[]): number[] => {
    const data: number[] = [];
    let escaped = false;
    for (let r = read(); r !== undefined; r = read()) {
      if (!escaped) {
        if (r === 0x5c) {
          escaped = true;
          continue;
        }
        if (breakers.includes(r)) {
          i--;
          break;
        }
      }
      escaped = false;
      data.push(r);
    }
    return data;
  };
  const range = (): void => {
    let not = false;
    let lo = 0;
    let hi = 0;
    let chars: number[] = [];
    let wantHi = false;
    let wantClose = false;
    for (;;) {
      const r = read();
      if (r === undefined) throw new BuiltinError('unexpected end of input');
      if (wantClose) {
        if (r !== 0x5d) throw new BuiltinError('expected close range character');
        break;
      }
      if (wantHi) {
        hi = r;
        if (hi < lo) throw new BuiltinError(`hi character '${String.fromCodePoint(hi)}' should be greater than lo '${String.fromCodePoint(lo)}'`);
        wantClose = true;
        continue;
      }
      if (!not && r === 0x21 && chars.length === 0 && lo === 0) {
        not = true;
        continue;
      }
      if (runes[i] === 0x2d) {
        i++;
        lo = r;
        wantHi = true;
        continue;
      }
      i--;
      chars = text([0x5d]);
      wantClose = true;
    }
    const isRange = lo !== 0 && hi !== 0;
    if ((chars.length > 0) === isRange) throw new BuiltinError('could not parse range');
    const body = isRange ? `${reRune(lo)}-${reRune(hi)}` : chars.map(reRune).join('');
    out += `[${not ? '^' : ''}${body}]`;
  };
  for (;;) {
    const r = read();
    if (r === undefined) break;
    if (r === 0x7b) {
      depth++;
      out += '(?:';
    } else if (r === 0x2c && depth > 0) {
      out += '|';
    } else if (r === 0x7d && depth > 0) {
      depth--;
      out += ')';
    } else if (r === 0x5b) {
      range();
    } else if (r === 0x3f) {
      out += any;
    } else if (r === 0x2a) {
      if (runes[i] === 0x2a) {
        i++;
        out += '(?s:.*)';
      } else out += `${any}*`;
    } else {
      i--;
      const breakers = depth > 0 ? [0x3f, 0x2a, 0x5b, 0x7b, 0x7d, 0x2c] : [0x3f, 0x2a, 0x5b, 0x7b];
      out += text(breakers).map(reRune).join('');
    }
  }
  return `^(?:${out}${')'.repeat(depth)})$`;
}

/** The delimiters operand: null → none, [] → ["."], otherwise one rune per string. */
function delimiters(v: Value): number[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw operandError(2, 'one of {array, null}', v);
  const out: number[] = [];
  for (const x of v) {
    if (typeof x !== 'string') throw new OperandTypeError(`operand 2 must be array of strings but got array containing ${typeName(x)}`);
    const cps = Array.from(x);
    if (cps.length !== 1) throw new OperandTypeError('operand 2 must be array of runes but got array containing string');
    out.push(cps[0]!.codePointAt(0)!);
  }
  return out.length ? out : [0x2e];
}

/** gobwas QuoteMeta: backslash before * ? \ [ ] { }. */
export function globQuoteMeta(s: string): string {
  return s.replace(/[*?\\[\]{}]/g, '\\$&');
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'glob.match',
      args: [T.string, T.anyOf(T.arrayOf(T.string), T.null), T.string],
      result: T.boolean,
      categories: ['glob'],
      description: 'Parses and matches strings against the glob notation. Not to be confused with `regex.globs_match`.',
    },
    impl: ([p, d, m]) => {
      const pattern = asString(p!, 1);
      const delims = delimiters(d!);
      const match = asString(m!, 3);
      return regexTest(globToRegex(pattern, delims), match);
    },
  },
  {
    decl: {
      name: 'glob.quote_meta',
      args: [T.string],
      result: T.string,
      categories: ['glob'],
      description: 'Returns a string which represents a version of the pattern where all asterisks have been escaped.',
    },
    impl: ([p]) => globQuoteMeta(asString(p!, 1)),
  },
];
