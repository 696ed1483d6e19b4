// Source-text facts the formatter needs but the AST does not keep (OPA reads them
// from each node's Location.Text): the row of any offset, where a bracket closes,
// where the previous expression ended (for blank lines between statements), the
// literal text of a string as written, whether a term was written in parentheses,
// and whether a keyword starts its line. Strings, raw strings and comments are
// skipped while matching brackets.
import type { Comment, Term } from './nodes.js';

const OPEN = '([{';
const CLOSE = ')]}';

export class SourceInfo {
  private readonly lineStarts: number[] = [0];
  /** Offset of the comment (`#`) on each row, if any. */
  private readonly commentAt = new Map<number, number>();

  constructor(readonly src: string, comments: Comment[]) {
    for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
    for (const c of comments) this.commentAt.set(c.loc.row, c.loc.offset);
  }

  /** 1-based row of an offset. */
  row(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** Skip a string, raw string or comment starting at `i`; returns the offset after it (or `i`). */
  private skip(i: number): number {
    const c = this.src[i];
    if (c === '"') {
      for (let j = i + 1; j < this.src.length; j++) {
        if (this.src[j] === '\\') j++;
        else if (this.src[j] === '"' || this.src[j] === '\n') return j + 1;
      }
      return this.src.length;
    }
    if (c === '`') {
      const j = this.src.indexOf('`', i + 1);
      return j < 0 ? this.src.length : j + 1;
    }
    if (c === '#') {
      const j = this.src.indexOf('\n', i);
      return j < 0 ? this.src.length : j;
    }
    return i;
  }

  /** Offset of the bracket closing the one at `open`, or -1. */
  closeOf(open: number): number {
    let depth = 0;
    for (let i = open; i < this.src.length; i++) {
      const j = this.skip(i);
      if (j !== i) {
        i = j - 1;
        continue;
      }
      const c = this.src[i]!;
      if (OPEN.includes(c)) depth++;
      else if (CLOSE.includes(c) && --depth === 0) return i;
    }
    return -1;
  }

  /** Row of the bracket closing the innermost bracket open at `at`, scanning from `from`; -1 when unknown. */
  enclosingCloseRow(from: number, at: number): number {
    const stack: number[] = [];
    for (let i = from; i < at && i < this.src.length; i++) {
      const j = this.skip(i);
      if (j !== i) {
        i = j - 1;
        continue;
      }
      const c = this.src[i]!;
      if (OPEN.includes(c)) stack.push(i);
      else if (CLOSE.includes(c)) stack.pop();
    }
    const open = stack.pop();
    if (open === undefined) return -1;
    const close = this.closeOf(open);
    return close < 0 ? -1 : this.row(close);
  }

  /** Row of the bracket closing the first `ch` at or after `from`; -1 when unknown. */
  closeRowAfter(from: number, ch: string): number {
    for (let i = from; i < this.src.length; i++) {
      const j = this.skip(i);
      if (j !== i) {
        i = j - 1;
        continue;
      }
      if (this.src[i] === ch) {
        const close = this.closeOf(i);
        return close < 0 ? -1 : this.row(close);
      }
    }
    return -1;
  }

  /** End offset (exclusive) of the code before `offset`, skipping blanks, `;` and comments. */
  endBefore(offset: number): number {
    let p = offset;
    for (;;) {
      while (p > 0 && ' \t\r\n;'.includes(this.src[p - 1]!)) p--;
      if (p === 0) return 0;
      const c = this.commentAt.get(this.row(p - 1));
      if (c !== undefined && c < p) {
        p = c;
        continue;
      }
      return p;
    }
  }

  /** Only blanks precede `offset` on its line. */
  startsLine(offset: number): boolean {
    for (let i = offset - 1; i >= 0; i--) {
      const c = this.src[i];
      if (c === '\n') return true;
      if (c !== ' ' && c !== '\t' && c !== '\r') return false;
    }
    return true;
  }

  /** The string literal as written at the term's offset, when it is one and decodes to the term's value. */
  stringText(t: Extract<Term, { kind: 'string' }>): string | undefined {
    const o = t.loc.offset;
    const c = this.src[o];
    if (c !== '"' && c !== '`') return undefined;
    const end = this.skip(o);
    const text = this.src.slice(o, end);
    if (c === '`') return text.length >= 2 && text.endsWith('`') && text.slice(1, -1) === t.value ? text : undefined;
    try {
      return JSON.parse(text) === t.value ? text : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The term was written inside grouping parentheses: a `(` precedes its first
   * character and is not a call's opening parenthesis (a name or `]` before it).
   */
  parenthesised(t: Term): boolean {
    let p = t.loc.offset;
    while (p > 0 && ' \t\r\n'.includes(this.src[p - 1]!)) p--;
    if (p === 0 || this.src[p - 1] !== '(') return false;
    const before = this.src[p - 2];
    return before === undefined || !/[A-Za-z0-9_\]]/.test(before);
  }
}
