// Rule productions: heads (`p`, `a.b[x]`, `f(x)`, `contains`, `=`/`:=`), bodies
// (`if {…}`, `if expr`, v0 `{…}`), `default`, `else` chains, v0 chained bodies
// `p {…} {…}`, and the Rego v1 syntax checks OPA applies after parsing.
import type { Body, Rule, RuleHead, Term } from '../ast/nodes.js';
import { formatTerm } from '../ast/print.js';
import { T } from '../lexer/token-kinds.js';
import { parseBody, parseLiteral, parseTermInfixCall } from './expressions.js';
import type { Parser, RuleSyntax } from './parser.js';
import type { ParseFailure } from '../lexer/lexer.js';
import { getBuiltin } from '../../runtime/builtins/registry.js';
import { parseRef, parseVar } from './terms.js';

/**
 * Statement = Rule | a non-rule literal (reported with OPA's rule-conversion errors).
 * OPA's parser reads a rule without a body as a statement, then makes it a rule
 * (parser_ext.go ParseRuleFromExpr); where that fails it reports why: `x == 1`,
 * `count(x)` (a builtin's name), `x = 1 with input as 2`, `x = 1; y = 2`. Such a
 * statement is parsed here again as one, for the same error.
 */
export function parseStatement(p: Parser): Rule[] {
  const start = p.lx.start;
  if (p.tok() === T.Default && !p.keywordAsRef()) return parseRules(p);
  if (p.tok() !== T.Ident && !p.keywordAsRef()) throw statementError(p, start) ?? p.moduleErrorAt('expression cannot be used for rule name', start);
  const s = p.save();
  let rules: Rule[];
  try {
    rules = parseRules(p);
  } catch (e) {
    if (!(e instanceof NotARuleHead)) throw e;
    p.restore(s);
    throw statementError(p, start) ?? e.failure;
  }
  const r = rules[0]!;
  const bodyless = rules.length === 1 && !r.else && !p.syntax.get(r)?.hasBody && !r.head.contains;
  const builtinCall = r.head.args !== undefined && r.head.value === undefined && getBuiltin(headName(r.head.ref)) !== undefined;
  if (bodyless && (p.tok() === T.With || p.tok() === T.Semicolon || builtinCall)) {
    p.restore(s);
    const err = statementError(p, start);
    if (err) throw err;
  }
  return rules;
}

/** parseHead met an operator after the name: the statement is an expression, not a rule. */
export class NotARuleHead {
  constructor(readonly failure: ParseFailure) {}
}

/**
 * OPA's ParseRuleFromBody error for the statement at `start` (parsed here as
 * literals separated by `;`), or undefined when OPA would make it a rule.
 */
function statementError(p: Parser, start: number): ParseFailure | undefined {
  const exprs = [parseLiteral(p)];
  while (p.tok() === T.Semicolon) {
    p.next();
    exprs.push(parseLiteral(p));
  }
  const e = exprs[0]!;
  const fail = (m: string) => p.moduleErrorAt(m, start);
  if (exprs.length > 1) return fail('multiple expressions cannot be used for rule head');
  if (e.with.length > 0) return fail('expressions using with keyword cannot be used for rule head');
  if (e.negated) return fail('negated expressions cannot be used for rule head');
  if (e.body.type === 'some' || e.body.type === 'somein') return fail("'some' declarations cannot be used for rule head");
  if (e.body.type !== 'term') return fail('expression cannot be used for rule head');
  const t = e.body.term;
  if (t.kind === 'ref') return undefined;
  if (t.kind !== 'call') return fail(`${t.kind} cannot be used for rule name`);
  const name = t.op.kind === 'var' ? t.op.name : headName([t.op.head, ...t.op.path]);
  if (name === 'eq' || name === 'assign') return undefined;
  return getBuiltin(name) ? fail('rule name conflicts with built-in function') : undefined;
}

function headName(ref: Term[]): string {
  if (ref.length === 0) return '';
  const [head, ...path] = ref;
  return formatTerm(path.length ? { kind: 'ref', head: head!, path, loc: head!.loc } : head!);
}

/** Rules = [ "default" ] RuleHead [ RuleBody ] { Else } | RuleHead RuleBody { "{" Body "}" } (v0). */
export function parseRules(p: Parser): Rule[] {
  const start = p.lx.start;
  const loc = p.loc(start);
  let isDefault = false;
  if (p.tok() === T.Default && !p.keywordAsRef()) {
    isDefault = true;
    p.next();
  }
  if (p.tok() !== T.Ident && !p.keywordAsRef()) throw p.illegal('expected ident');
  const { head, usesContains } = parseHead(p, isDefault);
  const syn: RuleSyntax = { hasIf: false, hasContains: usesContains, hasBody: false, hasValue: head.value !== undefined || usesContains };

  if (isDefault) {
    validateDefault(p, head, start);
    const rule: Rule = { kind: 'rule', default: true, head, body: [], loc };
    p.syntax.set(rule, { ...syn, hasValue: true });
    return [rule];
  }

  const hasIf = p.tok() === T.If && !p.keywordAsRef();
  // v0 `p[x] { … }` / `p[x]`: a multi-value (partial set) rule p with key x.
  if (!hasIf && !usesContains && !head.args && head.ref.length === 2 && head.value === undefined) {
    head.key = head.ref[1];
    head.ref = [head.ref[0]!];
    head.contains = true;
    syn.hasValue = true;
  }

  const rule: Rule = { kind: 'rule', default: false, head, body: [], loc };
  p.syntax.set(rule, syn);
  if (!parseRuleBody(p, rule, syn, hasIf)) {
    // A rule without a body: a value, `contains`, a ref head, or `f(x)` (OPA makes
    // that a function returning true). A bare name is not a rule.
    if (usesContains || head.value !== undefined || head.contains || head.args || head.ref.length > 2) return [rule];
    // OPA reads a bare name as a statement (`x`, `x; y`): parseStatement reports it.
    throw new NotARuleHead(p.moduleErrorAt('var cannot be used for rule name', start));
  }

  if (p.tok() === T.Else && !p.keywordAsRef()) {
    if (head.ref.length > 1 && head.ref.slice(1).some((t) => t.kind !== 'string' && t.kind !== 'number' && t.kind !== 'boolean' && t.kind !== 'null')) {
      throw p.errorAt('else keyword cannot be used on rules with variables in head');
    }
    if (head.key) throw p.errorAt('else keyword cannot be used on multi-value rules');
    // A loop, not recursion: else chains of any length parse (the depth check then
    // bounds them, as each `else` nests in the AST).
    let last = rule;
    do {
      last = last.else = parseElse(p, head);
    } while (p.tok() === T.Else && !p.keywordAsRef());
  }

  const rules = [rule];
  while (p.tok() === T.LBrace) {
    if (rule.else) throw p.errorAt('expected else keyword');
    const bloc = p.loc();
    p.next();
    const body = parseBody(p, T.RBrace);
    p.next();
    const next: Rule = { kind: 'rule', default: false, head: { ...head, loc: bloc }, body, loc: bloc };
    if (head.args) next.head.args = head.args.map((a) => (a.kind === 'var' && a.wildcard ? p.genWildcard(a.loc) : a));
    p.syntax.set(next, { ...syn, hasIf: false, hasBody: true });
    rules.push(next);
  }
  return rules;
}

/** IfBody = "{" Body "}" | Literal — a leading `{` that parses as a set literal is a body. */
function parseIfBody(p: Parser): Body {
  const leadingBrace = p.tok() === T.LBrace;
  if (!leadingBrace) {
    if (p.tok() === T.EOF) throw p.illegal('rule body expected');
    return [parseLiteral(p)];
  }
  const s = p.save();
  const lit = p.attempt(() => parseLiteral(p));
  if (lit && !(lit.body.type === 'term' && lit.body.term.kind === 'set' && lit.with.length === 0)) {
    // A braced single literal that is not a set, e.g. `p if {}` or `p if {"a": 1}`:
    // OPA reads it as one expression. Prefer a body when it also parses as one.
    if (lit.body.type === 'term' && lit.body.term.kind === 'object' && lit.body.term.entries.length === 0) {
      throw p.errorAt('found empty body', s.lx.start);
    }
    return [lit];
  }
  p.restore(s);
  p.next();
  const body = parseBody(p, T.RBrace);
  p.next();
  return body;
}

/** RuleHead = Name { RefSuffix } [ "(" Args ")" ] ( "contains" Term | [ ( "=" | ":=" ) Term ] ). */
export function parseHead(p: Parser, isDefault: boolean): { head: RuleHead; usesContains: boolean } {
  const start = p.lx.start;
  const loc = p.loc(start);
  let term: Term = parseVar(p);
  const t = p.tok();
  if (t === T.Add || t === T.Sub || t === T.Mul || t === T.Quo || t === T.Rem || t === T.And || t === T.Or ||
    t === T.Equal || t === T.Neq || t === T.Gt || t === T.Gte || t === T.Lt || t === T.Lte) {
    // OPA's parseRules gives up here without an error, and the statement is read as an
    // expression (parseStatement); a default rule has no such fallback.
    if (isDefault) throw p.illegal();
    throw new NotARuleHead(p.illegal());
  }
  if (t === T.Dot || t === T.LBrack || t === T.LParen) {
    // whitespace between the name and the first suffix is tolerated in heads
    p.lx.wsBefore = false;
    term = parseRef(p, term);
  }
  const head: RuleHead = { ref: [], assign: false, contains: false, loc };
  switch (term.kind) {
    case 'var': head.ref = [term]; break;
    case 'ref': head.ref = [term.head, ...term.path]; break;
    case 'call':
      head.ref = term.op.kind === 'var' ? [term.op] : [term.op.head, ...term.op.path];
      head.args = term.args;
      break;
    default:
      throw p.errorAt('expected rule head name', start);
  }
  if (head.ref[0]!.kind !== 'var') throw p.errorAt(`rule head ref ${headName(head.ref)} invalid`, start);
  switch (p.tok()) {
    case T.Contains:
      if (head.args) throw p.illegal(`the contains keyword can only be used with multi-value rule definitions (e.g., ${headName(head.ref)} contains <VALUE> { ... })`);
      p.next();
      head.key = parseTermInfixCall(p);
      head.contains = true;
      return { head, usesContains: true };
    case T.Unify:
      p.next();
      if (p.tok() === T.EOF) throw p.illegal(`expected rule value term (e.g., ${headName(head.ref)}[${headName(head.ref)}] = <VALUE> { ... })`);
      head.value = parseTermInfixCall(p);
      break;
    case T.Assign:
      p.next();
      head.assign = true;
      if (p.tok() === T.EOF) {
        if (head.args) throw p.illegal(`expected function value term (e.g., ${headName(head.ref)}(...) := <VALUE> { ... })`);
        if (isDefault) throw p.illegal(`expected default rule value term (e.g., default ${headName(head.ref)} := <VALUE>)`);
        throw p.illegal(`expected rule value term (e.g., ${headName(head.ref)} := <VALUE> { ... })`);
      }
      head.value = parseTermInfixCall(p);
      break;
  }
  return { head, usesContains: false };
}

/** Else = "else" [ ( "=" | ":=" ) Term ] [ "if" ] [ "{" Body "}" | Literal ] — one link; the caller loops. */
function parseElse(p: Parser, head: RuleHead): Rule {
  const loc = p.loc();
  const elseHead: RuleHead = { ref: head.ref, assign: false, contains: false, loc };
  if (head.args) elseHead.args = head.args.map((a) => (a.kind === 'var' && a.wildcard ? p.genWildcard(a.loc) : a));
  p.next();
  const syn: RuleSyntax = { hasIf: false, hasContains: false, hasBody: false, hasValue: false };
  if (p.tok() === T.Assign || p.tok() === T.Unify) {
    elseHead.assign = p.tok() === T.Assign;
    p.next();
    elseHead.value = parseTermInfixCall(p);
    syn.hasValue = true;
  } else if (p.tok() !== T.LBrace && p.tok() !== T.If) {
    throw p.illegal('expected else value term or rule body');
  }
  const rule: Rule = { kind: 'rule', default: false, head: elseHead, body: [], loc };
  p.syntax.set(rule, syn);
  parseRuleBody(p, rule, syn, p.tok() === T.If);
  return rule;
}

function validateDefault(p: Parser, head: RuleHead, start: number): void {
  if (head.value === undefined) throw p.errorAt('illegal default rule (must have a value)', start);
  const bad = findNonGround(head.value);
  if (bad) throw p.errorAt(`illegal default rule (value cannot contain ${bad})`, start);
  if (head.args) {
    const seen = new Set<string>();
    for (const a of head.args) {
      if (a.kind !== 'var') throw p.errorAt(`illegal default rule (arguments cannot contain ${a.kind})`, start);
      if (seen.has(a.name)) throw p.errorAt(`illegal default rule (arguments cannot be repeated ${a.name})`, start);
      seen.add(a.name);
    }
  }
}

function findNonGround(t: Term): string | undefined {
  switch (t.kind) {
    case 'var': return 'var';
    case 'ref': return 'ref';
    case 'call': return 'call';
    case 'array': case 'set':
      for (const x of t.items) { const r = findNonGround(x); if (r) return r; }
      return undefined;
    case 'object':
      for (const [k, v] of t.entries) { const r = findNonGround(k) ?? findNonGround(v); if (r) return r; }
      return undefined;
    case 'template':
      for (const x of t.parts) if (typeof x !== 'string') { const r = findNonGround(x); if (r) return r; }
      return undefined;
    default: return undefined;
  }
}

/** OPA's Rego v1 checks: `if` before bodies, `contains` for multi-value rules, values assigned. */
export function checkRegoV1(p: Parser, rule: Rule): void {
  for (let r: Rule | undefined = rule; r; r = r.else) {
    const syn = p.syntax.get(r);
    if (!syn || r.default) continue;
    const kind = r.head.args ? 'function' : 'rule';
    // OPA's RequireRuleBodyOrValue: a bare ref head of three or more parts (`a.b.c`,
    // which OPA reads as a statement and gives a generated value). A bare `f(x)` is a
    // function returning true (ParseRuleFromCallExpr), not an error.
    if (!syn.hasBody && !syn.hasValue && r.head.value === undefined && !r.head.args) {
      p.report(`${kind} must have value assignment and/or body declaration`, r.loc.offset);
    }
    if (syn.hasBody && !syn.hasIf) p.report(`\`if\` keyword is required before ${kind} body`, r.loc.offset);
    if (r.head.contains && !syn.hasContains) {
      p.report('`contains` keyword is required for partial set rules', r.loc.offset);
    }
  }
}

/** RuleBody = "if" ( Query | "{" Query "}" ) | "{" Query "}". Parses it into `rule`; false when neither follows. */
function parseRuleBody(p: Parser, rule: Rule, syn: RuleSyntax, atIf: boolean): boolean {
  if (atIf) {
    syn.hasIf = true;
    syn.hasBody = true;
    p.next();
    rule.body = parseIfBody(p);
    return true;
  }
  if (p.tok() === T.LBrace) {
    syn.hasBody = true;
    p.next();
    rule.body = parseBody(p, T.RBrace);
    p.next();
    return true;
  }
  return false;
}
