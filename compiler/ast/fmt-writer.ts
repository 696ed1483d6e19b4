// The output side of `regent fmt`, after OPA's format.writer: a buffer written
// line by line at an indentation level (tabs), and the comments of the module
// consumed in row order. `insertComments(row)` prints every pending comment above
// `row` on its own line (a blank line between comment groups, and after a group
// that was not directly above `row`), and keeps a comment on `row` itself to be
// appended to the current line when it ends. `delayBeforeEnd` postpones that
// trailing comment by one line (a multi-line composite opened on that row).
import type { Comment } from './nodes.js';
import type { SourceInfo } from './fmt-source.js';

export interface WriterOptions {
  /** Print Rego v1: `if` before bodies, `contains`, `:=` for values. */
  regoV1: boolean;
  /** `if` for rule bodies (v1, or imported in v0). */
  ifs: boolean;
  /** `contains` for multi-value rules (v1, or imported in v0). */
  contains: boolean;
  /** Some rule head is a ref longer than `p[x]`, so every head is printed as a ref. */
  refHeads: boolean;
  /** Future keywords imported (v0: only these are keywords). */
  futureKeywords: Set<string>;
}

interface PendingComment { row: number; text: string }

interface Snapshot {
  len: number;
  level: number;
  inline: boolean;
  beforeEnd: PendingComment | undefined;
  delay: boolean;
  comments: PendingComment[];
}

/** A second end-of-line comment for the current line (see insertComments). */
export class UnexpectedComment extends Error {}

export class Writer {
  private buf = '';
  protected level = 0;
  protected inline = false;
  private beforeEnd: PendingComment | undefined;
  private delay = false;
  protected comments: PendingComment[];

  constructor(protected readonly src: SourceInfo, comments: Comment[], protected readonly o: WriterOptions) {
    this.comments = comments
      .map((c) => ({ row: c.loc.row, col: c.loc.col, text: '#' + c.text.replace(/\s+$/, '') }))
      .sort((a, b) => a.row - b.row || a.col - b.col);
  }

  output(): string {
    return this.buf.endsWith('\n') ? this.buf.replace(/\n+$/, '') + '\n' : this.buf;
  }

  write(s: string): void {
    this.buf += s;
  }

  /** Begin a line at the current indentation. */
  startLine(): void {
    this.inline = true;
    this.buf += '\t'.repeat(this.level);
  }

  /** End the line, appending the pending trailing comment unless delayed. */
  endLine(): void {
    this.inline = false;
    if (this.beforeEnd && !this.delay) {
      this.buf += ' ' + this.beforeEnd.text;
      this.beforeEnd = undefined;
    }
    this.delay = false;
    this.buf += '\n';
  }

  blankLine(): void {
    if (this.inline) this.endLine();
    this.buf += '\n';
  }

  writeLine(s: string): void {
    if (!this.inline) this.startLine();
    this.buf += s;
    this.endLine();
  }

  up(): void {
    this.level++;
  }

  down(): void {
    if (this.level > 0) this.level--;
  }

  startMultilineSeq(): void {
    this.endLine();
    this.up();
    this.startLine();
  }

  delayBeforeEnd(): void {
    this.delay = true;
  }

  hasBeforeEnd(): boolean {
    return this.beforeEnd !== undefined;
  }

  /** The row of the next pending comment, or Infinity. */
  nextCommentRow(): number {
    return this.comments[0]?.row ?? Infinity;
  }

  /** Remove and return the pending comments on the given rows. */
  takeCommentsOnRows(rows: Set<number>): Map<number, string> {
    const out = new Map<number, string>();
    this.comments = this.comments.filter((c) => {
      if (!rows.has(c.row) || out.has(c.row)) return true;
      out.set(c.row, c.text);
      return false;
    });
    return out;
  }

  /** Pending comments strictly between two rows (they are inside text written verbatim). */
  commentsBetween(from: number, to: number): boolean {
    return this.comments.some((c) => c.row > from && c.row < to);
  }

  /** Print the remaining comments (end of module). */
  flushComments(): void {
    for (const c of this.comments) this.writeLine(c.text);
    this.comments = [];
  }

  writeComments(cs: PendingComment[]): void {
    // (OPA would write the comment after code already on the line, commenting out the rest)
    if (cs.length > 0 && this.inline && this.buf.slice(this.buf.lastIndexOf('\n') + 1).trim() !== '') this.endLine();
    let inMetadata = false;
    cs.forEach((c, i) => {
      const metadata = /^#\s*METADATA/.test(c.text);
      if (i > 0 && c.row - cs[i - 1]!.row > 1) {
        this.blankLine();
        inMetadata = false;
      } else if (i > 0 && inMetadata && metadata) {
        this.blankLine(); // one METADATA block directly after another
      }
      if (metadata) inMetadata = true;
      this.writeLine(c.text);
    });
  }

  /** Comments above `row` go on their own lines; one on `row` ends the current line. */
  insertComments(row: number): void {
    if (row < 0) return;
    let n = 0;
    while (n < this.comments.length && this.comments[n]!.row < row) n++;
    const before = this.comments.slice(0, n);
    let at: PendingComment | undefined;
    if (n < this.comments.length && this.comments[n]!.row === row) at = this.comments[n++];
    this.comments = this.comments.slice(n);
    this.writeComments(before);
    if (before.length > 0 && row - before[before.length - 1]!.row > 1) this.blankLine();
    if (at) {
      if (this.beforeEnd) {
        // Two comments for one output line: OPA writes the enclosing term as it was
        // written; inside a composite we do the same, elsewhere the two are joined.
        if (this.verbatimOK > 0) throw new UnexpectedComment();
        this.beforeEnd = { row: this.beforeEnd.row, text: `${this.beforeEnd.text} ${at.text}` };
      } else this.beforeEnd = at;
    }
  }

  /** Composites being written, which can fall back to their source text. */
  protected verbatimOK = 0;

  snapshot(): Snapshot {
    return { len: this.buf.length, level: this.level, inline: this.inline, beforeEnd: this.beforeEnd, delay: this.delay, comments: this.comments };
  }

  restore(s: Snapshot): void {
    this.buf = this.buf.slice(0, s.len);
    this.level = s.level;
    this.inline = s.inline;
    this.beforeEnd = s.beforeEnd;
    this.delay = s.delay;
    this.comments = s.comments;
  }

  /** After writing source text verbatim: drop the comments inside it (rows before `lastRow`). */
  wroteVerbatim(firstRow: number, lastRow: number): void {
    this.comments = this.comments.filter((c) => c.row >= lastRow);
    if (this.beforeEnd && this.beforeEnd.row >= firstRow && this.beforeEnd.row < lastRow) this.beforeEnd = undefined;
    // a comment after the last line stays at the end of that line
    if (!this.beforeEnd && this.comments[0]?.row === lastRow) this.beforeEnd = this.comments.shift();
  }
}
