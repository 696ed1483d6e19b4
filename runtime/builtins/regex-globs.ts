// regex.globs_match: do two "globs" (the glob-intersection library's syntax:
// literal runes, `.` any rune, `[...]` sets with ranges, `+` / `*` repetition of
// the previous token, `\` escapes) match at least one common string? The input
// is tokenized with that library's rules and error messages; the intersection
// is then decided exactly with a product-automaton search (linear in the product
// of the token counts) instead of the library's backtracking heuristics.
import { BuiltinError } from './errors.js';

const FLAG_NONE = 0;
const FLAG_PLUS = 1;
const FLAG_STAR = 2;

interface Tok {
  kind: 'char' | 'dot' | 'set';
  r: number;
  ranges: [number, number][];
  flag: number;
}

const invalid = (pos: number, msg: string): BuiltinError =>
  new BuiltinError(`pos:${pos}:${msg}: the input provided is invalid`);

class Lexer {
  constructor(readonly input: number[]) {}

  /** nextRune: [newIndex, rune, escaped] or undefined at the end. */
  rune(i: number): [number, number, boolean] | undefined {
    const inp = this.input;
    if (i >= inp.length) return undefined;
    if (inp[i] === 0x5c) {
      if (i < inp.length - 1) return [i + 2, inp[i + 1]!, true];
      throw invalid(i, 'input ends with a \\ (escape) character');
    }
    return [i + 1, inp[i]!, false];
  }

  set(i: number): [number, Tok] {
    const ranges: [number, number][] = [];
    let prev = 0;
    let prevExists = false;
    let cur = this.rune(i);
    while (cur) {
      let [ni, r, esc] = cur;
      if (!esc && r === 0x2d /* - */) {
        if (!prevExists) throw invalid(ni, "range character '-' must be preceded by a Unicode character");
        if (ni >= this.input.length - 1) throw invalid(ni, "range character '-' must be followed by a Unicode character");
        const next = this.rune(ni)!;
        [ni, r, esc] = next;
        if (!esc && (r === 0x5d || r === 0x2d)) throw invalid(ni, "range character '-' cannot be followed by a special symbol");
        if (r >= prev) ranges.push([prev, r]);
        prevExists = false;
      } else if (!esc && r === 0x5d /* ] */) {
        return [ni, { kind: 'set', r: 0, ranges, flag: FLAG_NONE }];
      } else {
        ranges.push([r, r]);
        prev = r;
        prevExists = true;
      }
      cur = this.rune(ni);
      i = ni;
    }
    throw invalid(i, 'found [ without matching ]');
  }

  tokens(): Tok[] {
    const out: Tok[] = [];
    let i = 0;
    for (let cur = this.rune(i); cur; cur = this.rune(i)) {
      let [ni, r, esc] = cur;
      let tok: Tok;
      if (!esc && r === 0x2e) tok = { kind: 'dot', r: 0, ranges: [], flag: FLAG_NONE };
      else if (!esc && r === 0x5d) throw invalid(ni, "set-close ']' with no preceding '['");
      else if (!esc && r === 0x5b) [ni, tok] = this.set(ni);
      else if (!esc && (r === 0x2b || r === 0x2a)) throw invalid(ni, `flag '${String.fromCodePoint(r)}' must be preceded by a non-flag`);
      else tok = { kind: 'char', r, ranges: [], flag: FLAG_NONE };
      const f = this.rune(ni);
      if (f && !f[2] && (f[1] === 0x2b || f[1] === 0x2a)) {
        tok.flag = f[1] === 0x2b ? FLAG_PLUS : FLAG_STAR;
        ni = f[0];
      }
      out.push(tok);
      i = ni;
    }
    return out;
  }
}

function inRanges(r: number, ranges: [number, number][]): boolean {
  return ranges.some(([lo, hi]) => r >= lo && r <= hi);
}

/** Can one rune match both tokens? (the library's Match) */
function compatible(a: Tok, b: Tok): boolean {
  if (a.kind === 'dot' || b.kind === 'dot') return true;
  if (a.kind === 'char' && b.kind === 'char') return a.r === b.r;
  if (a.kind === 'char') return inRanges(a.r, b.ranges);
  if (b.kind === 'char') return inRanges(b.r, a.ranges);
  return a.ranges.some(([lo, hi]) => b.ranges.some(([lo2, hi2]) => lo <= hi2 && lo2 <= hi));
}

/** Expand `x+` into `x x*`; each state index then has one token with flag none or star. */
function expandPlus(toks: Tok[]): Tok[] {
  const out: Tok[] = [];
  for (const t of toks) {
    if (t.flag === FLAG_PLUS) out.push({ ...t, flag: FLAG_NONE }, { ...t, flag: FLAG_STAR });
    else out.push(t);
  }
  return out;
}

const MAX_STATES = 4_000_000;

/** Is the intersection of the two globs' languages non-empty? */
export function globsIntersect(g1: string, g2: string): boolean {
  const a = expandPlus(new Lexer(Array.from(g1, (c) => c.codePointAt(0)!)).tokens());
  const b = expandPlus(new Lexer(Array.from(g2, (c) => c.codePointAt(0)!)).tokens());
  const n = a.length + 1;
  const m = b.length + 1;
  if (n * m > MAX_STATES) throw new BuiltinError('globs too large to intersect');
  const seen = new Uint8Array(n * m);
  const stack: number[] = [0];
  seen[0] = 1;
  const push = (i: number, j: number): void => {
    const k = i * m + j;
    if (!seen[k]) {
      seen[k] = 1;
      stack.push(k);
    }
  };
  while (stack.length) {
    const k = stack.pop()!;
    const i = Math.floor(k / m);
    const j = k % m;
    if (i === a.length && j === b.length) return true;
    const ta = a[i];
    const tb = b[j];
    // Epsilon moves: skip a starred token.
    if (ta && ta.flag === FLAG_STAR) push(i + 1, j);
    if (tb && tb.flag === FLAG_STAR) push(i, j + 1);
    if (ta && tb && compatible(ta, tb)) {
      push(ta.flag === FLAG_STAR ? i : i + 1, tb.flag === FLAG_STAR ? j : j + 1);
    }
  }
  return false;
}
