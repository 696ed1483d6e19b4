// Expression productions: operator precedence (OPA's parseTermIn → Relation → Or →
// And → Arith → Factor), literals (`not`, `some`, `every`, `with`), expressions
// (`=`/`:=`) and bodies. Operators are desugared into calls of OPA's builtin names.
import type { Body, CallTerm, Expr, ExprBody, Location, RefTerm, Term, VarTerm, With } from '../ast/nodes.js';
import { T } from '../lexer/token-kinds.js';
import type { Parser } from './parser.js';
import { parseTerm } from './terms.js';

const OP_NAMES: Partial<Record<T, string>> = {
  [T.Add]: 'plus', [T.Sub]: 'minus', [T.Mul]: 'mul', [T.Quo]: 'div', [T.Rem]: 'rem',
  [T.And]: 'and', [T.Or]: 'or',
  [T.Equal]: 'equal', [T.Neq]: 'neq', [T.Lt]: 'lt', [T.Lte]: 'lte', [T.Gt]: 'gt', [T.Gte]: 'gte',
  [T.Unify]: 'eq', [T.Assign]: 'assign',
};

// Binary precedence levels, loosest first (the `in` level is handled separately).
const LEVEL_RELATION = 0;
const LEVEL_OR = 1;
const LEVEL_AND = 2;
const LEVEL_ARITH = 3;
const LEVEL_FACTOR = 4;
const NOT_AN_OPERATOR = -1;

function levelOf(t: T): number {
  switch (t) {
    case T.Equal: case T.Neq: case T.Lt: case T.Lte: case T.Gt: case T.Gte: return LEVEL_RELATION;
    case T.Or: return LEVEL_OR;
    case T.And: return LEVEL_AND;
    case T.Add: case T.Sub: return LEVEL_ARITH;
    case T.Mul: case T.Quo: case T.Rem: return LEVEL_FACTOR;
    default: return NOT_AN_OPERATOR;
  }
}

function opVar(p: Parser, t: T): VarTerm {
  return { kind: 'var', name: OP_NAMES[t]!, loc: p.loc() };
}

function memberOp(loc: Location, arity: 2 | 3): RefTerm {
  return {
    kind: 'ref', head: { kind: 'var', name: 'internal', loc },
    path: [{ kind: 'string', value: arity === 2 ? 'member_2' : 'member_3', loc }], loc,
  };
}

/**
 * BinaryTerm(level) = BinaryTerm(level+1) { Op(level) BinaryTerm(level+1) }, left
 * associative, implemented by precedence climbing over the levels above `minLevel`.
 * `lhs`, when given, is an already parsed leftmost primary term.
 */
function parseBinary(p: Parser, minLevel: number, lhs?: Term): Term {
  let left = lhs ?? parseTerm(p);
  for (;;) {
    const level = levelOf(p.tok());
    if (level < minLevel) return left;
    const op = opVar(p, p.tok());
    p.next();
    let right = parseTerm(p);
    while (levelOf(p.tok()) > level) right = parseBinary(p, level + 1, right);
    left = { kind: 'call', op, args: [left, right], loc: left.loc };
  }
}

/** TermRelation = TermOr { ("==" | "!=" | "<" | "<=" | ">" | ">=") TermOr }. */
export function parseTermRelation(p: Parser, lhs?: Term): Term {
  return parseBinary(p, LEVEL_RELATION, lhs);
}

/**
 * TermIn = TermRelation [ "," TermRelation "in" TermRelation ] { "in" TermRelation }.
 * The `k, v in xs` form is only tried when `keyVal` is set (not inside lists).
 */
export function parseTermIn(p: Parser, keyVal: boolean, lhs?: Term): Term {
  let left = parseTermRelation(p, lhs);
  if (keyVal && p.tok() === T.Comma) {
    const l = left;
    const three = p.attempt(() => {
      p.next();
      const mhs = parseTermRelation(p);
      if (p.tok() !== T.In) throw p.illegal();
      const op = memberOp(p.loc(), 3);
      p.next();
      const rhs = parseTermRelation(p);
      return { kind: 'call', op, args: [l, mhs, rhs], loc: l.loc } as Term;
    });
    if (three) left = three;
  }
  while (p.tok() === T.In) {
    const op = memberOp(p.loc(), 2);
    p.next();
    const rhs = parseTermRelation(p);
    left = { kind: 'call', op, args: [left, rhs], loc: left.loc };
  }
  return left;
}

/** InfixTerm = TermIn (with `k, v in xs`). */
export function parseTermInfixCall(p: Parser): Term {
  return parseTermIn(p, true);
}

/** InfixTermInList = TermIn without the `k, v in xs` form (commas separate items). */
export function parseTermInfixCallInList(p: Parser): Term {
  return parseTermIn(p, false);
}

/** Continue operator parsing from an already parsed primary term. */
export function continueInfix(p: Parser, head: Term, keyVal: boolean): Term {
  return parseTermIn(p, keyVal, head);
}

/** Expr = InfixTerm [ ( ":=" | "=" ) InfixTerm ]. */
export function parseExpr(p: Parser): Term {
  const lhs = parseTermInfixCall(p);
  if (p.tok() === T.Assign || p.tok() === T.Unify) {
    const op = opVar(p, p.tok());
    p.next();
    const rhs = parseTermInfixCall(p);
    return { kind: 'call', op, args: [lhs, rhs], loc: lhs.loc };
  }
  return lhs;
}

/** Literal = SomeDecl | Every | [ "not" ] Expr { With }. */
export function parseLiteral(p: Parser): Expr {
  const start = p.lx.start;
  const loc = p.loc(start);
  let negated = false;
  let body: ExprBody;
  if (p.keywordAsRef()) {
    body = { type: 'term', term: parseExpr(p) };
  } else {
    if (p.tok() === T.Not) {
      negated = true;
      p.next();
    }
    if (negated && p.notBodies && p.tok() === T.LBrace) {
      p.next();
      const notBody = parseBody(p, T.RBrace);
      p.next();
      const withs = p.tok() === T.With ? parseWith(p) : [];
      return { kind: 'expr', negated, body: { type: 'term', term: { kind: 'boolean', value: true, loc } }, notBody, with: withs, loc };
    }
    if (p.tok() === T.Some && !p.keywordAsRef()) {
      if (negated) throw p.illegal("illegal negation of 'some'");
      body = parseSome(p);
    } else if (p.tok() === T.Every && !p.keywordAsRef()) {
      if (negated) throw p.illegal("illegal negation of 'every'");
      body = parseEvery(p);
    } else {
      body = { type: 'term', term: parseExpr(p) };
    }
  }
  const withs = p.tok() === T.With ? parseWith(p) : [];
  if (negated && p.notBodies) return { kind: 'expr', negated, body, with: withs, wholeNegation: true, loc };
  return { kind: 'expr', negated, body, with: withs, loc };
}

function isMember(t: Term, arity: number): boolean {
  return t.kind === 'call' && t.op.kind === 'ref' && t.op.head.kind === 'var' && t.op.head.name === 'internal' &&
    t.op.path.length === 1 && t.op.path[0]!.kind === 'string' && t.op.path[0]!.value === `member_${arity}`;
}

/** SomeDecl = "some" ( Var { "," Var } | InfixTerm-that-is-`x in xs`-or-`k, v in xs` ). */
export function parseSome(p: Parser): ExprBody {
  const s = p.save();
  p.next();
  const term = p.attempt(() => parseTermInfixCall(p));
  if (term && term.kind === 'call') {
    const c = term as CallTerm;
    if (isMember(c, 2)) return { type: 'somein', value: c.args[0]!, collection: c.args[1]! };
    if (isMember(term, 3)) return { type: 'somein', key: c.args[0]!, value: c.args[1]!, collection: c.args[2]! };
    throw p.errorAt('unexpected ' + 'call: expected `x in xs` or `x, y in xs` expression', term.loc.offset);
  }
  p.restore(s);
  const vars: VarTerm[] = [];
  for (;;) {
    p.next();
    if (p.tok() !== T.Ident) throw p.illegal('expected var');
    const loc = p.loc();
    const name = p.lx.value;
    vars.push(name === '_' ? p.genWildcard(loc) : { kind: 'var', name, loc });
    p.next();
    if (p.tok() !== T.Comma) break;
  }
  return { type: 'some', vars };
}

/** Every = "every" [ Var "," ] Var "in" InfixTerm "{" Body "}". */
export function parseEvery(p: Parser): ExprBody {
  p.next();
  const term = parseTermInfixCall(p) as CallTerm;
  let key: Term | undefined;
  let value: Term;
  let domain: Term;
  if (isMember(term, 2)) {
    value = term.args[0]!;
    domain = term.args[1]!;
  } else if (isMember(term, 3)) {
    key = term.args[0]!;
    value = term.args[1]!;
    domain = term.args[2]!;
    if (key!.kind !== 'var') throw p.errorAt('unexpected term: expected key to be a variable', key!.loc.offset);
  } else {
    throw p.errorAt('unexpected term: expected `x[, y] in xs { ... }` expression', term.loc.offset);
  }
  if (value.kind !== 'var') throw p.errorAt('unexpected term: expected value to be a variable', value.loc.offset);
  if (p.tok() !== T.LBrace) throw p.illegal('missing body');
  p.next();
  const body = parseBody(p, T.RBrace);
  p.next();
  return { type: 'every', ...(key ? { key: key as VarTerm } : {}), value, domain, body };
}

/** With = "with" Term "as" InfixTerm { "with" … }. */
export function parseWith(p: Parser): With[] {
  const withs: With[] = [];
  while (p.tok() === T.With) {
    const loc = p.loc();
    p.next();
    if (p.tok() !== T.Ident && !p.keywordAsRef()) throw p.illegal('expected ident');
    const target = parseTerm(p);
    if (target.kind !== 'ref' && target.kind !== 'var') throw p.errorAt('unexpected term: expected with target path', target.loc.offset);
    if (p.tok() !== T.As) throw p.illegal('expected as keyword');
    p.next();
    const value = parseTermInfixCall(p);
    withs.push({ kind: 'with', target, value, loc });
  }
  return withs;
}

/**
 * Body = Literal { ( ";" | newline ) Literal } — ends at `end` (not consumed):
 * `}` for braces and comprehensions, `]` for array comprehensions, EOF for queries.
 */
export function parseBody(p: Parser, end: T): Body {
  p.enter();
  if (p.tok() === end) throw p.errorAt('found empty body');
  const body: Body = [];
  for (;;) {
    body.push(parseLiteral(p));
    if (p.tok() === T.Semicolon) {
      p.next();
      continue;
    }
    if (p.tok() === end) break;
    if (!p.lx.nlBefore) {
      const endName = end === T.EOF ? 'eof' : end === T.RBrace ? '}' : ']';
      throw p.illegal(`expected \\n or ; or ${endName}`);
    }
  }
  p.leave();
  return body;
}
