// Canonical Rego v1 printer of an AST alone (`regent parse` dumps, messages, the
// pass dumps; `regent fmt` uses fmt-module.ts, which also reads the source text to
// lay code out as `opa fmt`): tabs for indentation, `if` before every
// body, `contains` for multi-value rules, operators printed infix with the minimal
// parentheses OPA's precedence requires. Comments are re-emitted in source order:
// full-line comments before the statement/expression that follows them, end-of-line
// comments after the first line of the expression on their row. Array, set and
// object literals written over several rows stay multi-line (one output line per
// source row, trailing commas, as `opa fmt`); back-quoted templates stay
// back-quoted when their text allows. Printing is idempotent:
// format(parse(format(parse(x)))) === format(parse(x)).
import type { Body, Comment, Expr, Location, Module, Rule, RuleHead, Term, With } from './nodes.js';

const INFIX: Record<string, [string, number]> = {
  or: ['|', 2], and: ['&', 3],
  equal: ['==', 1], neq: ['!=', 1], lt: ['<', 1], lte: ['<=', 1], gt: ['>', 1], gte: ['>=', 1],
  plus: ['+', 4], minus: ['-', 4], mul: ['*', 5], div: ['/', 5], rem: ['%', 5],
};
const LEVEL_IN = 0;
const LEVEL_PRIMARY = 9;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Ctx = 'top' | 'item' | 'operand';

function isMember(t: Term, arity: 2 | 3): boolean {
  return t.kind === 'call' && t.args.length === arity && t.op.kind === 'ref' && t.op.head.kind === 'var' &&
    t.op.head.name === 'internal' && t.op.path.length === 1 && t.op.path[0]!.kind === 'string' &&
    t.op.path[0]!.value === `member_${arity}`;
}

function infixOf(t: Term): [string, number] | undefined {
  if (t.kind !== 'call' || t.op.kind !== 'var' || t.args.length !== 2) return undefined;
  return INFIX[t.op.name];
}

/** The binding level of a term when printed (lower binds looser). */
function levelOf(t: Term): number {
  if (isMember(t, 2) || isMember(t, 3)) return LEVEL_IN;
  return infixOf(t)?.[1] ?? LEVEL_PRIMARY;
}

export function formatString(s: string): string {
  return JSON.stringify(s).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function formatTemplateChunk(s: string): string {
  return formatString(s).slice(1, -1).replace(/[{}]/g, (c) => '\\' + c);
}

/** A back-quoted template can hold its chunks verbatim (no backquote, no `\` before `{`). */
function rawTemplateOK(parts: (string | Term)[]): boolean {
  return parts.every((p, i) => typeof p !== 'string' || (!p.includes('`') && !(p.endsWith('\\') && i + 1 < parts.length)));
}

function formatRefPart(t: Term): string {
  if (t.kind === 'string' && IDENT.test(t.value)) return '.' + t.value;
  return '[' + formatTerm(t) + ']';
}

function formatCallForm(t: Extract<Term, { kind: 'call' }>): string {
  return `${formatTerm(t.op)}(${t.args.map((a) => formatTerm(a)).join(', ')})`;
}

// Multi-line composites (as `opa fmt`): when the elements of an array, set or
// object literal were written on more than one source row, each row's elements go
// on their own output line, indented one level deeper, with a trailing comma.
let baseIndent = 0; // indentation of the statement being printed
let depth = 0; // multi-line composites currently open

function composite(open: string, close: string, items: [Location | undefined, () => string][]): string {
  const groups: (() => string)[][] = [];
  let row = -1;
  for (const [loc, text] of items) {
    const r = loc?.row ?? row;
    if (groups.length === 0 || r !== row) groups.push([text]);
    else groups[groups.length - 1]!.push(text);
    row = r;
  }
  if (groups.length <= 1) return open + items.map(([, text]) => text()).join(', ') + close;
  depth++;
  const pad = '\t'.repeat(baseIndent + depth);
  const lines = groups.map((g) => pad + g.map((text) => text()).join(', ') + ',');
  depth--;
  return `${open}\n${lines.join('\n')}\n${'\t'.repeat(baseIndent + depth)}${close}`;
}

/** Print a term. `ctx` controls parentheses around infix calls. */
export function formatTerm(t: Term, ctx: Ctx = 'operand'): string {
  switch (t.kind) {
    case 'null': return 'null';
    case 'boolean': return t.value ? 'true' : 'false';
    case 'number': return t.text;
    case 'string':
      if (t.raw && !t.value.includes('`')) return '`' + t.value + '`';
      return formatString(t.value);
    case 'var': return t.wildcard ? '_' : t.name;
    case 'ref': {
      let head: string;
      if (t.head.kind === 'call') head = formatCallForm(t.head);
      else head = formatTerm(t.head, 'item');
      return head + t.path.map(formatRefPart).join('');
    }
    case 'array': return composite('[', ']', t.items.map((x) => [x.loc, () => formatTerm(x, 'item')]));
    case 'set':
      if (t.items.length === 0) return 'set()';
      return composite('{', '}', t.items.map((x) => [x.loc, () => formatTerm(x, 'item')]));
    case 'object':
      return composite('{', '}', t.entries.map(([k, v]) => [k.loc, () => `${formatTerm(k, 'item')}: ${formatTerm(v, 'item')}`]));
    case 'arraycomp': return `[${formatTerm(t.head, 'item')} | ${formatBody(t.body)}]`;
    case 'setcomp': return `{${formatTerm(t.head, 'item')} | ${formatBody(t.body)}}`;
    case 'objectcomp': return `{${formatTerm(t.key, 'item')}: ${formatTerm(t.value, 'item')} | ${formatBody(t.body)}}`;
    case 'template': {
      const raw = t.raw === true && rawTemplateOK(t.parts);
      let out = raw ? '$`' + (typeof t.parts[0] === 'string' && /^\r?\n/.test(t.parts[0]) ? '\n' : '') : '$"';
      t.parts.forEach((p, i) => {
        if (typeof p === 'string') out += raw ? p.replace(/[{}]/g, (c) => '\\' + c) : formatTemplateChunk(p);
        else out += '{' + formatValue(p) + (t.withs?.[i] ? formatWiths(t.withs[i]!) : '') + '}';
      });
      return out + (raw ? '`' : '"');
    }
    case 'call': {
      let s: string;
      if (isMember(t, 2)) {
        s = `${formatOperand(t.args[0]!, LEVEL_IN, false)} in ${formatOperand(t.args[1]!, LEVEL_IN, true)}`;
      } else if (isMember(t, 3)) {
        s = `${formatOperand(t.args[0]!, LEVEL_IN, true)}, ${formatOperand(t.args[1]!, LEVEL_IN, true)} in ${formatOperand(t.args[2]!, LEVEL_IN, true)}`;
        return ctx === 'top' ? s : `(${s})`;
      } else {
        const inf = infixOf(t);
        if (!inf) return formatCallForm(t);
        s = `${formatOperand(t.args[0]!, inf[1], false)} ${inf[0]} ${formatOperand(t.args[1]!, inf[1], true)}`;
        if (ctx === 'item' && inf[0] === '|') return `(${s})`;
      }
      return s;
    }
  }
}

function formatOperand(t: Term, parent: number, right: boolean): string {
  const l = levelOf(t);
  const s = formatTerm(t, 'operand');
  if (isMember(t, 3)) return s;
  if (l < parent || (right && l === parent && l !== LEVEL_PRIMARY)) return `(${s})`;
  return s;
}

function formatWiths(ws: With[]): string {
  return ws.map((w) => ` with ${formatTerm(w.target)} as ${formatValue(w.value)}`).join('');
}

/**
 * A term in a value position (either side of `=`/`:=`, a rule value, a `with`
 * value): infix forms print bare, except `k, v in xs`, whose comma needs parentheses.
 */
function formatValue(t: Term): string {
  return formatTerm(t, isMember(t, 3) ? 'operand' : 'top');
}

/** Print a top-level expression term (`=`/`:=` infix, then the infix forms). */
function formatExprTerm(t: Term): string {
  if (t.kind === 'call' && t.op.kind === 'var' && t.args.length === 2 && (t.op.name === 'eq' || t.op.name === 'assign')) {
    return `${formatValue(t.args[0]!)} ${t.op.name === 'eq' ? '=' : ':='} ${formatValue(t.args[1]!)}`;
  }
  return formatTerm(t, 'top');
}

class Printer {
  out: string[] = [];
  private ci = 0;

  constructor(private readonly comments: Comment[]) {}

  line(indent: number, text: string): void {
    this.out.push('\t'.repeat(indent) + text);
  }

  /** Emit full-line comments that start before `offset`. */
  flush(offset: number, indent: number): void {
    while (this.ci < this.comments.length && this.comments[this.ci]!.loc.offset < offset) {
      this.line(indent, '#' + this.comments[this.ci]!.text);
      this.ci++;
    }
  }

  /** Append comments on `row` (not before `offset`) to the last line. */
  trailing(row: number): void {
    while (this.ci < this.comments.length && this.comments[this.ci]!.loc.row === row) {
      // after the first line of a multi-line statement: the row the comment was on
      this.out[this.out.length - 1] = this.out[this.out.length - 1]!.replace(/\n|$/, ' #' + this.comments[this.ci]!.text.replace(/\$/g, '$$$$') + '$&');
      this.ci++;
    }
  }

  rest(): void {
    if (this.ci < this.comments.length) this.out.push('');
    while (this.ci < this.comments.length) this.line(0, '#' + this.comments[this.ci++]!.text);
  }

  expr(e: Expr, indent: number): void {
    this.flush(e.loc.offset, indent);
    baseIndent = indent;
    const prefix = e.negated ? 'not ' : '';
    const b = e.body;
    if (e.notBody) {
      this.line(indent, 'not {');
      this.trailing(e.loc.row);
      for (const x of e.notBody) this.expr(x, indent + 1);
      baseIndent = indent;
      this.line(indent, '}' + formatWiths(e.with));
      return;
    }
    switch (b.type) {
      case 'term': this.line(indent, prefix + formatExprTerm(b.term) + formatWiths(e.with)); break;
      case 'some': this.line(indent, 'some ' + b.vars.map((v) => formatTerm(v)).join(', ') + formatWiths(e.with)); break;
      case 'somein': this.line(indent, formatSomeIn(b) + formatWiths(e.with)); break;
      case 'every': {
        this.line(indent, `${formatEveryHead(b)} {`);
        this.trailing(e.loc.row);
        for (const x of b.body) this.expr(x, indent + 1);
        baseIndent = indent;
        this.line(indent, '}' + formatWiths(e.with));
        return;
      }
    }
    this.trailing(e.loc.row);
  }

  body(body: Body, indent: number): void {
    for (const e of body) this.expr(e, indent);
  }

  rule(r: Rule): void {
    this.flush(r.loc.offset, 0);
    baseIndent = 0;
    const head = formatHead(r.head, r.default);
    if (r.body.length === 0 && !r.else) {
      this.line(0, head);
      this.trailing(r.loc.row);
      return;
    }
    if (r.body.length === 0) this.line(0, head);
    else {
      this.line(0, head + ' if {');
      this.trailing(r.loc.row);
      this.body(r.body, 1);
      this.line(0, '}');
    }
    for (let e = r.else; e; e = e.else) {
      baseIndent = 0;
      const v = e.head.value ? ` ${e.head.assign ? ':=' : '='} ${formatValue(e.head.value)}` : '';
      if (e.body.length === 0) {
        this.out[this.out.length - 1] += ` else${v}`;
      } else {
        this.out[this.out.length - 1] += ` else${v} if {`;
        this.body(e.body, 1);
        this.line(0, '}');
      }
    }
  }
}

function formatSomeIn(b: Extract<Expr['body'], { type: 'somein' }>): string {
  const key = b.key ? formatTerm(b.key, 'item') + ', ' : '';
  return `some ${key}${formatOperand(b.value, LEVEL_IN, true)} in ${formatOperand(b.collection, LEVEL_IN, true)}`;
}

function formatEveryHead(b: Extract<Expr['body'], { type: 'every' }>): string {
  const key = b.key ? formatTerm(b.key) + ', ' : '';
  return `every ${key}${formatTerm(b.value)} in ${formatOperand(b.domain, LEVEL_IN, true)}`;
}

function formatRuleRef(ref: Term[]): string {
  const [head, ...path] = ref;
  return formatTerm(head!) + path.map(formatRefPart).join('');
}

function formatHead(h: RuleHead, isDefault: boolean): string {
  let s = (isDefault ? 'default ' : '') + formatRuleRef(h.ref);
  if (h.args) s += '(' + h.args.map((a) => formatTerm(a)).join(', ') + ')';
  if (h.key && h.value === undefined) s += ' contains ' + formatValue(h.key);
  if (h.value !== undefined) s += ` ${h.assign ? ':=' : '='} ${formatValue(h.value)}`;
  return s;
}

/** Print a body inline, expressions joined by `; ` (queries, comprehension bodies). */
export function formatBody(b: Body): string {
  return b.map(formatExprInline).join('; ');
}

function formatExprInline(e: Expr): string {
  const prefix = e.negated ? 'not ' : '';
  const b = e.body;
  if (e.notBody) return `not { ${formatBody(e.notBody)} }${formatWiths(e.with)}`;
  let s: string;
  switch (b.type) {
    case 'term': s = prefix + formatExprTerm(b.term); break;
    case 'some': s = 'some ' + b.vars.map((v) => formatTerm(v)).join(', '); break;
    case 'somein': s = formatSomeIn(b); break;
    case 'every': s = `${formatEveryHead(b)} { ${formatBody(b.body)} }`; break;
  }
  return s + formatWiths(e.with);
}

function formatPackagePath(path: Term[]): string {
  const rest = path.slice(1);
  if (rest.length === 0) return 'data';
  const first = rest[0]!;
  const head = first.kind === 'string' ? first.value : formatTerm(first);
  return head + rest.slice(1).map(formatRefPart).join('');
}

/** Print a module as canonical Rego v1. */
export function formatModule(m: Module): string {
  const comments = [...m.comments].sort((a, b) => a.loc.offset - b.loc.offset);
  const p = new Printer(comments);
  p.flush(m.package.loc.offset, 0);
  p.line(0, 'package ' + formatPackagePath(m.package.path));
  p.trailing(m.package.loc.row);
  if (m.imports.length) {
    p.line(0, '');
    for (const imp of m.imports) {
      p.flush(imp.loc.offset, 0);
      p.line(0, `import ${formatTerm(imp.path)}${imp.alias ? ' as ' + imp.alias : ''}`);
      p.trailing(imp.loc.row);
    }
  }
  for (const r of m.rules) {
    p.line(0, '');
    p.rule(r);
  }
  p.rest();
  return p.out.join('\n') + '\n';
}
