// Bodies and expressions for `regent fmt` (OPA's writeBody/writeExpr): one
// expression per line, a blank line kept where the source had one; `some`
// declarations split over rows as written; `every` and `not { }` bodies on one
// line when written so; `with` modifiers on the row they were on, later rows
// indented; operands at the top of an expression parenthesised only where the
// grammar needs it, and `plus(x, y, z)` printed as `z = x + y`.
import type { Body, Expr, With } from './nodes.js';
import { LEVEL_PRIMARY, TermWriter, infixOf, isUnion, levelOf, memberArity, type Call } from './fmt-terms.js';

export abstract class ExprWriter extends TermWriter {
  writeBody(body: Body): void {
    if (body.length === 0) return;
    this.insertComments(body[0]!.loc.row);
    body.forEach((e, i) => {
      if (i > 0) {
        const lastRow = this.src.row(Math.max(0, this.src.endBefore(e.loc.offset) - 1));
        if (e.loc.row > lastRow + 1) this.blankLine();
      }
      this.startLine();
      this.writeExpr(e);
      this.endLine();
    });
  }

  writeExpr(e: Expr): void {
    this.insertComments(e.loc.row);
    if (!this.inline) this.startLine();
    if (e.notBody) {
      this.write('not {');
      this.writeBlock(e.notBody, e.loc.row, this.src.enclosingCloseRow(e.loc.offset, e.notBody[0]?.loc.offset ?? e.loc.offset), true);
      this.write('}');
    } else {
      if (e.negated) this.write('not ');
      const b = e.body;
      switch (b.type) {
        case 'term':
          if (b.term.kind === 'call') this.writeFunctionCall(b.term);
          else this.writeTerm(b.term);
          break;
        case 'some': {
          this.write('some ');
          let row = e.loc.row;
          b.vars.forEach((v, i) => {
            if (v.loc.row > row) {
              this.endLine();
              this.startLine();
              this.write('\t');
              row = v.loc.row;
            } else if (i > 0) this.write(' ');
            this.writeTerm(v);
            if (i < b.vars.length - 1) this.write(',');
          });
          break;
        }
        case 'somein':
          this.write('some ');
          this.writeInOperator(false, b.key ? [b.key, b.value, b.collection] : [b.value, b.collection]);
          break;
        case 'every':
          this.write('every ');
          if (b.key) {
            this.writeTerm(b.key);
            this.write(', ');
          }
          this.writeTerm(b.value);
          this.write(' in ');
          this.writeTermParens(memberArity(b.domain) > 0, b.domain);
          this.write(' {');
          this.writeBlock(b.body, e.loc.row, this.src.enclosingCloseRow(e.loc.offset, b.body[0]?.loc.offset ?? e.loc.offset), false);
          this.write('}');
          break;
      }
    }
    this.writeWiths(e.with);
  }

  /**
   * `{ body }` of `every` / `not`: one line when written on one line, else a block.
   * A space before the `}` of a one-line `every` of one expression, or of a `not`
   * whose last expression is on its row (OPA's quirk: `every x in xs { a; b}`).
   */
  private writeBlock(body: Body, row: number, closeRow: number, isNot: boolean): void {
    this.writeComprehensionBody(body, row, closeRow);
    const last = body[body.length - 1];
    if (isNot ? last?.loc.row === row : body.length === 1 && body[0]!.loc.row === row) this.write(' ');
  }

  /** `with`s stay on the row they were on; one on a later row starts an indented line. */
  private writeWiths(ws: With[]): void {
    if (ws.length === 0) return;
    let lastRow = this.src.row(Math.max(0, this.src.endBefore(ws[0]!.loc.offset) - 1));
    let indented = false;
    for (const w of ws) {
      const down = w.loc.row > lastRow;
      if (down) {
        if (!indented) this.up();
        indented = true;
        this.endLine();
        this.startLine();
        lastRow = w.loc.row;
      }
      this.insertComments(w.loc.row);
      if (!down) this.write(' ');
      this.write('with ');
      this.writeTerm(w.target);
      this.write(' as ');
      this.writeTerm(w.value);
    }
    if (indented) this.down();
  }

  /**
   * `p if { a | b == c }` would read back as a set comprehension: parenthesise a
   * union that leads the first expression of a braced rule body (OPA's markUnionLead).
   */
  markUnionLead(e: Expr): void {
    if (e.negated || e.notBody || e.body.type !== 'term' || e.body.term.kind !== 'call') return;
    const t = e.body.term;
    if (isUnion(t)) this.parenTerm = t;
    else if (infixOf(t)) {
      const lead = t.args.length === 3 ? t.args[2] : t.args[0];
      if (lead && isUnion(lead)) this.parenTerm = lead;
    }
  }

  /** A call at the top of an expression: operands unparenthesised unless the grammar needs it. */
  private writeFunctionCall(t: Call): void {
    if (t === this.parenTerm) return this.writeTermParens(true, t);
    const m = memberArity(t);
    if (m) return this.writeInOperator(false, t.args);
    const inf = infixOf(t);
    if (inf && t.args.length === 2) {
      this.writeTermParens(levelOf(t.args[0]!) < inf[1], t.args[0]!);
      this.write(` ${inf[0]} `);
      this.writeTermParens(levelOf(t.args[1]!) <= inf[1] && levelOf(t.args[1]!) !== LEVEL_PRIMARY, t.args[1]!);
      return;
    }
    if (inf && inf[1] > 0 && t.args.length === 3) {
      // `plus(x, y, z)` prints as `z = x + y`
      this.writeTerm(t.args[2]!);
      this.write(' = ');
      this.writeTermParens(levelOf(t.args[0]!) < inf[1], t.args[0]!);
      this.write(` ${inf[0]} `);
      this.writeTermParens(levelOf(t.args[1]!) <= inf[1] && levelOf(t.args[1]!) !== LEVEL_PRIMARY, t.args[1]!);
      return;
    }
    this.writeCallPlain(t);
  }
}
