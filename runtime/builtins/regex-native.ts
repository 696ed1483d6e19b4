// Native ECMAScript RegExp for the RE2 patterns whose meaning provably agrees, for
// match/no-match tests only (regex.match, re_match, template and glob matching).
// re2js stays the reference: every pattern is compiled by re2js first (Go's syntax
// check and error texts), and this translation only accepts a small subset where
// RE2 and `new RegExp(src, 'u')` recognise the same language:
//   literals (code points), `^` `$` (text anchors: no `m` flag in either), `.` (as
//   `[^\n]`: Go's dot), groups `(…)` `(?:…)`, alternation, quantifiers `* + ? {n}
//   {n,} {n,m}` and their lazy forms, classes of literals and ranges (negated too),
//   `\d \D \w \W` (ASCII in both, spelled out), escaped syntax characters, `\t \n
//   \r \f \v`.
// Anything else (flags, `\s`, `\b`, `\p{…}`, POSIX classes, named groups, `]` or `}`
// as literals, …) stays on re2js. Existence of a match depends only on the language
// and the anchors, so leftmost-first details do not matter here.
// Backtracking cost is bounded instead of linear: quantifiers apply to one-character
// atoms only (a group may take `?`), so with U counted repetitions the worst case is
// about n^(U+1)·B steps (B: product of alternation widths and optional parts, ≤ 64);
// the native form is used for U = 0 on any input, for U = 1 or 2 on inputs short
// enough that n^(U+1)·B ≤ 2^20 (U = 1: 1,024 characters at B = 1, 128 at B = 64;
// U = 2: 101 at B = 1), never for U > 2. Longer inputs go to re2js.

/** A native form of a pattern and when it may be used. */
export interface NativeRegex {
  re: RegExp;
  /** Longest input the native form is used for. */
  maxLength: number;
  /** The pattern can match a lone surrogate (dot, negated class): check inputs are well formed. */
  wellFormedOnly: boolean;
}

const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
const CONTROL: Record<string, string> = { t: '\\t', n: '\\n', r: '\\r', f: '\\f', v: '\\v' };
const CLASS_ESCAPES: Record<string, string> = { d: '0-9', w: '0-9A-Za-z_' };

class Reject extends Error {}

/** Parser state of one translation. */
class Translator {
  private i = 0;
  unbounded = 0;
  branches = 1;
  wellFormedOnly = false;

  constructor(private readonly p: string) {}

  private fail(): never {
    throw new Reject();
  }

  translate(): string {
    const out = this.alternation();
    if (this.i !== this.p.length) this.fail();
    return out;
  }

  private alternation(): string {
    const parts = [this.sequence()];
    while (this.p[this.i] === '|') {
      this.i++;
      parts.push(this.sequence());
    }
    this.branches *= parts.length;
    if (this.branches > 64) this.fail();
    return parts.join('|');
  }

  private sequence(): string {
    let out = '';
    for (;;) {
      const ch = this.p[this.i];
      if (ch === undefined || ch === '|' || ch === ')') return out;
      const atom = this.atom();
      out += atom.src + this.quantifier(atom.kind);
    }
  }

  /** One atom; kind says what may follow it. */
  private atom(): { src: string; kind: 'char' | 'group' | 'anchor' } {
    const p = this.p;
    const ch = p[this.i]!;
    switch (ch) {
      case '^':
      case '$':
        this.i++;
        return { src: ch, kind: 'anchor' };
      case '.':
        this.i++;
        this.wellFormedOnly = true;
        return { src: '[^\\n]', kind: 'char' };
      case '(': {
        this.i++;
        let open = '(';
        if (p[this.i] === '?') {
          if (p[this.i + 1] !== ':') this.fail();
          this.i += 2;
          open = '(?:';
        }
        const inner = this.alternation();
        if (p[this.i] !== ')') this.fail();
        this.i++;
        return { src: open + inner + ')', kind: 'group' };
      }
      case '[':
        return { src: this.charClass(), kind: 'char' };
      case '\\':
        return { src: this.escape(false), kind: 'char' };
      case ')':
      case ']':
      case '{':
      case '}':
      case '*':
      case '+':
      case '?':
        return this.fail();
      default: {
        const cp = p.codePointAt(this.i)!;
        const s = String.fromCodePoint(cp);
        this.i += s.length;
        return { src: s, kind: 'char' };
      }
    }
  }

  /** `\x` outside or inside a class, as JS source. */
  private escape(inClass: boolean): string {
    const c = this.p[this.i + 1];
    if (c === undefined) this.fail();
    this.i += 2;
    if (SYNTAX.has(c) || (inClass && c === '-')) return '\\' + c;
    if (CONTROL[c] !== undefined) return CONTROL[c];
    const lower = c.toLowerCase();
    const set = CLASS_ESCAPES[lower];
    if (set === undefined || (c !== lower && inClass)) this.fail();
    if (inClass) return set;
    if (c !== lower) this.wellFormedOnly = true;
    return (c === lower ? '[' : '[^') + set + ']';
  }

  /** `[…]` of literals, ranges of literals, and `\d`/`\w`. */
  private charClass(): string {
    const p = this.p;
    this.i++;
    let out = '[';
    if (p[this.i] === '^') {
      out += '^';
      this.i++;
      this.wellFormedOnly = true;
    }
    if (p[this.i] === ']') this.fail();
    let first = true;
    for (;;) {
      const ch = p[this.i];
      if (ch === undefined) this.fail();
      if (ch === ']') break;
      if (ch === '[') this.fail();
      if (ch === '-') {
        // A literal dash only first or last (the same in both syntaxes).
        if (!first && p[this.i + 1] !== ']') this.fail();
        out += '\\-';
        this.i++;
        first = false;
        continue;
      }
      const lo = this.classChar();
      if (p[this.i] === '-' && p[this.i + 1] !== ']') {
        this.i++;
        if (lo.set) this.fail();
        const hi = this.classChar();
        if (hi.set) this.fail();
        out += lo.src + '-' + hi.src;
      } else out += lo.src;
      first = false;
    }
    this.i++;
    return out + ']';
  }

  private classChar(): { src: string; set: boolean } {
    const p = this.p;
    if (p[this.i] === '\\') {
      const c = p[this.i + 1];
      const src = this.escape(true);
      return { src, set: c !== undefined && CLASS_ESCAPES[c] !== undefined };
    }
    const cp = p.codePointAt(this.i)!;
    const s = String.fromCodePoint(cp);
    this.i += s.length;
    return { src: s, set: false };
  }

  /** A quantifier after an atom of `kind` (or nothing), as JS source. */
  private quantifier(kind: 'char' | 'group' | 'anchor'): string {
    const p = this.p;
    const ch = p[this.i];
    let q: string;
    let repeats: boolean;
    if (ch === '*' || ch === '+' || ch === '?') {
      q = ch;
      repeats = ch !== '?';
      this.i++;
    } else if (ch === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(this.i));
      if (!m) this.fail();
      q = m[0];
      repeats = m[2] !== undefined && m[3] !== m[1];
      this.i += m[0].length;
    } else return '';
    if (p[this.i] === '?') {
      q += '?';
      this.i++;
    }
    if (kind === 'anchor' || (kind === 'group' && q[0] !== '?')) this.fail();
    if (repeats) this.unbounded++;
    else if (q[0] === '?') {
      this.branches *= 2;
      if (this.branches > 64) this.fail();
    }
    const next = p[this.i];
    if (next === '*' || next === '+' || next === '?' || next === '{') this.fail();
    return q;
  }
}

/** Budget of backtracking steps for the longest input: n^(U+1)·B ≤ 2^20 (a few ms at worst). */
const STEP_BUDGET = 2 ** 20;

/** Longest input for U repetitions and B alternatives: any without repetition, none above two. */
function maxLength(unbounded: number, branches: number): number | undefined {
  if (unbounded === 0) return Infinity;
  if (unbounded > 2) return undefined;
  return Math.floor(Math.pow(STEP_BUDGET / branches, 1 / (unbounded + 1)));
}

/**
 * The native form of an RE2 pattern (already known to compile in re2js), or
 * undefined when it is outside the subset where both agree.
 */
export function nativeRegex(pattern: string): NativeRegex | undefined {
  if (!(pattern as unknown as { isWellFormed(): boolean }).isWellFormed()) return undefined;
  const t = new Translator(pattern);
  let src: string;
  try {
    src = t.translate();
  } catch (e) {
    if (e instanceof Reject) return undefined;
    throw e;
  }
  const longest = maxLength(t.unbounded, t.branches);
  if (longest === undefined) return undefined;
  let re: RegExp;
  try {
    re = new RegExp(src, 'u');
  } catch {
    return undefined;
  }
  return { re, maxLength: longest, wellFormedOnly: t.wellFormedOnly };
}
