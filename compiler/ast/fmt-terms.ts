// Terms for `regent fmt`, after OPA's format.go: calls of infix builtins print
// infix, and an infix call nested in another one is always parenthesised
// (`y = (x + 1) + 2`). Array, set, object and argument lists keep one output line
// per source row of elements (multi-line, with trailing commas, when that is more
// than one row or a line break follows the opening bracket); a composite that
// cannot be laid out around its comments is copied as written. Comprehension
// bodies stay on one line when written so. Strings keep their escapes as written;
// `k, v in xs` is parenthesised inside other terms. Bodies and expressions are in
// fmt-exprs.ts.
import type { Body, Expr, Term } from './nodes.js';
import { formatString, formatTerm } from './print.js';
import { UnexpectedComment, Writer } from './fmt-writer.js';

const INFIX: Record<string, [string, number]> = {
  eq: ['=', -1], assign: [':=', -1],
  equal: ['==', 1], neq: ['!=', 1], lt: ['<', 1], lte: ['<=', 1], gt: ['>', 1], gte: ['>=', 1],
  or: ['|', 2], and: ['&', 3],
  plus: ['+', 4], minus: ['-', 4], mul: ['*', 5], div: ['/', 5], rem: ['%', 5],
};
const LEVEL_IN = 0;
export const LEVEL_PRIMARY = 9;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Call = Extract<Term, { kind: 'call' }>;

export function memberArity(t: Term): 0 | 2 | 3 {
  if (t.kind !== 'call' || t.op.kind !== 'ref' || t.op.head.kind !== 'var' || t.op.head.name !== 'internal') return 0;
  const p = t.op.path;
  if (p.length !== 1 || p[0]!.kind !== 'string') return 0;
  if (p[0]!.value === 'member_2' && t.args.length === 2) return 2;
  if (p[0]!.value === 'member_3' && t.args.length === 3) return 3;
  return 0;
}

export function infixOf(t: Term): [string, number] | undefined {
  if (t.kind !== 'call' || t.op.kind !== 'var') return undefined;
  return INFIX[t.op.name];
}

export function levelOf(t: Term): number {
  if (memberArity(t)) return LEVEL_IN;
  const inf = infixOf(t);
  return inf && t.kind === 'call' && t.args.length === 2 ? inf[1] : LEVEL_PRIMARY;
}

/** One element of a list, set, object or argument list: its source row and its printer. */
export interface Element { row: number; offset: number; write: () => void }

const KEYWORDS = new Set(['as', 'default', 'else', 'false', 'import', 'not', 'null', 'package', 'some', 'true', 'with']);
const FUTURE_KEYWORDS = new Set(['contains', 'every', 'if', 'in']);

export const isUnion = (t: Term) => infixOf(t)?.[0] === '|' && t.kind === 'call' && t.args.length === 2;

export abstract class TermWriter extends Writer {
  abstract writeBody(body: Body): void;
  abstract writeExpr(e: Expr): void;

  // ------------------------------------------------------------ terms

  writeTerm(t: Term, row?: number): void {
    this.writeTermParens(false, t, row);
  }

  /** A term to parenthesise when next written (a union leading a braced rule body). */
  protected parenTerm: Term | undefined;

  writeTermParens(parens: boolean, t: Term, row = t.loc.row): void {
    if (t === this.parenTerm) {
      this.parenTerm = undefined;
      parens = true;
    }
    this.insertComments(row);
    if (!this.inline) this.startLine();
    switch (t.kind) {
      case 'ref': this.writeRef(t); break;
      case 'array': this.writeList('[', ']', t.items, t.loc.offset, t.loc.row); break;
      case 'set':
        if (t.items.length === 0) this.write('set()');
        else this.writeList('{', '}', t.items, t.loc.offset, t.loc.row);
        break;
      case 'object':
        this.writeComposite('{', '}', t.entries.map(([k, v]) => ({
          row: k.loc.row,
          offset: k.loc.offset,
          write: () => {
            this.writeTermParens(isUnion(k), k);
            this.write(': ');
            this.writeTermParens(isUnion(v), v);
          },
        })), t.loc.offset, t.loc.row);
        break;
      case 'arraycomp':
        this.write('[');
        this.writeComprehension(t.head, t.head.loc.row, t.body, t.loc.row, this.closeRowAt(t.loc.offset));
        this.write(']');
        break;
      case 'setcomp':
        this.write('{');
        this.writeComprehension(t.head, t.head.loc.row, t.body, t.loc.row, this.closeRowAt(t.loc.offset));
        this.write('}');
        break;
      case 'objectcomp':
        // (the value counts as written on the row of the `{`, as in OPA)
        this.write('{');
        this.writeTermParens(isUnion(t.key), t.key);
        this.write(': ');
        this.writeComprehension(t.value, t.loc.row, t.body, t.loc.row, this.closeRowAt(t.loc.offset));
        this.write('}');
        break;
      case 'string': this.write(this.src.stringText(t) ?? (t.raw && !t.value.includes('`') ? '`' + t.value + '`' : formatString(t.value))); break;
      case 'var': this.write(t.wildcard ? '_' : t.name); break;
      case 'call': this.writeCall(parens, t); break;
      case 'number': this.write(t.text); break;
      default: this.write(formatTerm(t)); break;
    }
    if (!this.inline) this.startLine();
  }

  private closeRowAt(offset: number): number {
    const c = this.src.src[offset];
    if (c !== '[' && c !== '{' && c !== '(') return -1;
    const close = this.src.closeOf(offset);
    return close < 0 ? -1 : this.src.row(close);
  }

  private writeList(open: string, close: string, items: Term[], offset: number, row: number): void {
    this.writeComposite(open, close, items.map((x) => ({
      row: x.loc.row,
      offset: x.loc.offset,
      write: () => this.writeTermParens(isUnion(x), x),
    })), offset, row);
  }

  /**
   * An array, set or object literal. Written on one line but with comments inside,
   * it is copied as written (as OPA does); otherwise its elements go through
   * writeIterable, multi-line also when a line break follows the opening bracket.
   */
  private writeComposite(open: string, close: string, elements: Element[], offset: number, row: number): void {
    const closeOffset = this.src.src[offset] === open ? this.src.closeOf(offset) : -1;
    const first = elements[0];
    const nl = first !== undefined && closeOffset >= 0 && this.src.src.slice(offset, first.offset).includes('\n');
    this.writeDelimited(open, close, elements, row, offset, closeOffset, nl, true);
  }

  /**
   * `open` elements `close`. With two end-of-line comments meeting on one output
   * line, or (`keepCommented`: composites) written on one line but with comments
   * inside, the text from `from` to `closeOffset` is copied as written (as OPA does).
   */
  private writeDelimited(open: string, close: string, elements: Element[], row: number, from: number, closeOffset: number,
    nl: boolean, keepCommented: boolean): void {
    const closeRow = closeOffset < 0 ? -1 : this.src.row(closeOffset);
    const verbatim = () => {
      this.write(this.src.src.slice(from, closeOffset + 1));
      this.wroteVerbatim(row, closeRow);
    };
    if (keepCommented && closeOffset >= 0 && this.groupRows(elements.map((e) => e.row), row) === 1 && this.commentsBetween(row, closeRow)) {
      return verbatim();
    }
    const saved = this.snapshot();
    if (closeOffset >= 0) this.verbatimOK++;
    try {
      this.write(open);
      this.writeIterable(elements, row, closeRow, nl);
      this.write(close);
    } catch (e) {
      if (!(e instanceof UnexpectedComment) || closeOffset < 0) throw e;
      this.restore(saved);
      verbatim();
    } finally {
      if (closeOffset >= 0) this.verbatimOK--;
    }
  }

  private writeRef(t: Extract<Term, { kind: 'ref' }>): void {
    const h = t.head;
    this.writeTermParens(h.kind === 'call' && (this.src.parenthesised(h) || infixOf(h) !== undefined || memberArity(h) > 0), h);
    for (const p of t.path) {
      if (p.kind === 'string') this.write(this.dotted(p) ? '.' + p.value : `[${formatString(p.value)}]`);
      else if (p.kind === 'var') this.write(`[${p.wildcard ? '_' : p.name}]`);
      else {
        this.write('[');
        this.writeTerm(p);
        this.write(']');
      }
    }
  }

  /** `.name` unless not a name, or a keyword written as `["name"]` (OPA keeps that). */
  dotted(p: Extract<Term, { kind: 'string' }>): boolean {
    if (!IDENT.test(p.value)) return false;
    const kw = KEYWORDS.has(p.value) || (FUTURE_KEYWORDS.has(p.value) && (this.o.regoV1 || this.o.futureKeywords.has(p.value)));
    return !(kw && this.src.src[p.loc.offset] === '"');
  }

  private writeCall(parens: boolean, t: Call): void {
    const m = memberArity(t);
    if (m === 3) return this.writeInOperator(true, t.args);
    if (m === 2) {
      if (parens) this.write('(');
      this.writeInOperator(false, t.args);
      if (parens) this.write(')');
      return;
    }
    const inf = infixOf(t);
    if (!inf || t.args.length !== 2) return this.writeCallPlain(t);
    if (parens) this.write('(');
    this.writeTermParens(true, t.args[0]!);
    this.write(` ${inf[0]} `);
    this.writeTermParens(true, t.args[1]!);
    if (parens) this.write(')');
  }

  writeCallPlain(t: Call): void {
    const op = formatTerm(t.op);
    const paren = this.src.src.indexOf('(', t.op.loc.offset);
    // the source text of the call (from the operator), when the call is as written
    const written = paren >= 0 && this.src.src.slice(t.op.loc.offset, paren).replace(/\s+/g, '') === op;
    this.write(op);
    this.writeDelimited('(', ')', t.args.map((a) => ({
      row: a.loc.row,
      offset: a.loc.offset,
      write: () => this.writeTermParens(isUnion(a) && this.src.parenthesised(a), a),
    })), t.op.loc.row, paren, written ? this.src.closeOf(paren) : -1, false, false);
  }

  writeInOperator(parens: boolean, operands: Term[]): void {
    const three = operands.length === 3;
    if (parens && three) this.write('(');
    operands.forEach((x, i) => {
      if (i > 0) this.write(i === operands.length - 1 ? ' in ' : ', ');
      this.writeTermParens(true, x);
    });
    if (parens && three) this.write(')');
  }

  private writeComprehension(head: Term, headRow: number, body: Body, row: number, closeRow: number): void {
    if (headRow - row >= 1) {
      this.endLine();
      this.startLine();
    }
    const parens = head.kind === 'call' && (this.src.parenthesised(head) || isUnion(head));
    this.writeTermParens(parens, head, headRow);
    this.write(' |');
    this.writeComprehensionBody(body, headRow, closeRow);
  }

  writeComprehensionBody(body: Body, row: number, closeRow: number): void {
    const lines = this.groupRows(body.map((e) => e.loc.row), row);
    if ((body[0] && body[0].loc.row - row > 0) || lines > 1) {
      this.endLine();
      this.up();
      this.writeBody(body);
      this.insertComments(closeRow);
      this.down();
      this.startLine();
      return;
    }
    this.write(' ');
    body.forEach((e, i) => {
      if (i > 0) this.write('; ');
      this.writeExpr(e);
    });
    this.insertComments(closeRow);
  }

  /** The number of output lines for elements at these rows (a new line where the row changes). */
  private groupRows(rows: number[], last: number): number {
    let lines = 1;
    rows.forEach((r, i) => {
      if (r - last > 0 && i > 0) lines++;
      last = r;
    });
    return lines;
  }

  /** Elements grouped by source row; several groups print one per line, with trailing commas. */
  writeIterable(elements: Element[], row: number, closeRow: number, newlineFirst: boolean): void {
    const lines: Element[][] = [];
    let cur: Element[] = [];
    let last = row;
    elements.forEach((e, i) => {
      if (e.row - last > 0 && i > 0) {
        lines.push(cur);
        cur = [];
      }
      last = e.row;
      cur.push(e);
    });
    lines.push(cur);
    const multi = lines.length > 1 || newlineFirst;
    if (multi) {
      this.delayBeforeEnd();
      this.startMultilineSeq();
    }
    lines.forEach((line, i) => {
      line.forEach((e, j) => {
        if (j > 0) this.write(', ');
        e.write();
      });
      if (i < lines.length - 1) {
        this.write(',');
        this.endLine();
        this.startLine();
      }
    });
    if (multi) {
      this.write(',');
      this.endLine();
      this.insertComments(closeRow);
      this.down();
      this.startLine();
    }
  }
}
