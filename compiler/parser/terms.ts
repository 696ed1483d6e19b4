// Term productions: scalars, vars, refs, calls, arrays, sets, objects, comprehensions
// and template strings. Each function is entered with the current token at the
// start of its production and leaves the cursor on the first token after it.
import { valueName } from '../ast/walk.js';
import type {
  ArrayTerm, Body, CallTerm, Location, ObjectTerm, RefTerm, SetTerm, Term, TemplateTerm, VarTerm, With,
} from '../ast/nodes.js';
import { T } from '../lexer/token-kinds.js';
import { parseNumber as numberValue } from '../../runtime/value/number.js';
import { continueInfix, parseBody, parseTermInfixCall, parseTermInfixCallInList, parseWith } from './expressions.js';
import type { Parser } from './parser.js';

const ROOT_DOCS = new Set(['data', 'input']);

/** Term = Scalar | Var | Array | SetOrObject | Template | "(" InfixTerm ")" , { RefSuffix }. */
export function parseTerm(p: Parser): Term {
  p.enter();
  const start = p.lx.start;
  const loc = p.loc(start);
  let term: Term;
  let unaryMinus = false;
  let tok = p.tok();
  if (tok !== T.Ident && tok !== T.Null && tok !== T.True && tok !== T.False && p.keywordAsRef()) tok = T.Ident;
  switch (tok) {
    case T.Null: term = { kind: 'null', loc }; p.next(); break;
    case T.True: term = { kind: 'boolean', value: true, loc }; p.next(); break;
    case T.False: term = { kind: 'boolean', value: false, loc }; p.next(); break;
    case T.Sub:
      p.next();
      if (p.tok() === T.Ident || p.tok() === T.Contains) {
        unaryMinus = true;
        term = parseVar(p);
      } else {
        term = parseNumber(p, '-', start);
      }
      break;
    case T.Dot:
      p.next();
      term = parseNumber(p, '.', start);
      break;
    case T.Number: term = parseNumber(p, '', start); break;
    case T.String: term = { kind: 'string', value: p.lx.value, loc }; p.next(); break;
    case T.RawString: term = { kind: 'string', value: p.lx.value, raw: true, loc }; p.next(); break;
    case T.TemplatePart:
    case T.TemplateEnd: term = parseTemplate(p); break;
    case T.Ident:
    case T.Contains: term = parseVar(p); break;
    case T.LBrack: term = parseArray(p); break;
    case T.LBrace: term = parseSetOrObject(p); break;
    case T.LParen: {
      p.next();
      const inner = parseTermInfixCall(p);
      if (p.tok() !== T.RParen) throw p.errorAt('non-terminated expression');
      p.next();
      term = inner;
      break;
    }
    default:
      throw p.illegal();
  }
  term = parseTermFinish(p, term);
  if (unaryMinus) {
    term = {
      kind: 'call', op: { kind: 'var', name: 'minus', loc },
      args: [{ kind: 'number', value: 0, text: '0', loc }, term], loc,
    };
  }
  p.leave();
  return term;
}

/** Continue a term with ref/call suffixes written without whitespace: `.x`, `[i]`, `(args)`. */
export function parseTermFinish(p: Parser, head: Term): Term {
  const t = p.tok();
  if ((t === T.Dot || t === T.LBrack || t === T.LParen) && !p.lx.wsBefore) return parseRef(p, head);
  if (head.kind === 'var' && ROOT_DOCS.has(head.name)) return { kind: 'ref', head, path: [], loc: head.loc };
  return head;
}

export function parseVar(p: Parser): VarTerm {
  const loc = p.loc();
  const name = p.lx.value;
  p.next();
  if (name === '_') return p.genWildcard(loc);
  return { kind: 'var', name, loc };
}


/** RefSuffix = "." Name | "[" InfixTerm "]" | "(" [ TermList ] ")". */
export function parseRef(p: Parser, head: Term): Term {
  p.enter();
  const loc = head.loc;
  let path: Term[] = [];
  if (head.kind === 'ref') {
    path = head.path.slice();
    head = head.head;
  } else if (!(head.kind === 'var' || head.kind === 'array' || head.kind === 'object' || head.kind === 'set' ||
    head.kind === 'arraycomp' || head.kind === 'setcomp' || head.kind === 'objectcomp' || head.kind === 'call')) {
    throw p.errorAt(`illegal ref (head cannot be ${valueName(head)})`, loc.offset);
  }
  for (;;) {
    const t = p.tok();
    if (p.lx.wsBefore) break;
    if (t === T.Dot) {
      p.next();
      if (!p.isNameToken() || p.lx.wsBefore) throw p.illegal('expected identifier');
      path.push({ kind: 'string', value: p.lx.value, loc: p.loc() });
      p.next();
    } else if (t === T.LBrack) {
      p.next();
      const idx = parseTermInfixCall(p);
      if (p.tok() !== T.RBrack) throw p.illegal('expected ]');
      path.push(idx);
      p.next();
    } else if (t === T.LParen) {
      const op = callOperator(p, head, path, loc);
      const call = parseCall(p, op, loc);
      p.leave();
      if ((p.tok() === T.Dot || p.tok() === T.LBrack) && !p.lx.wsBefore) return parseRef(p, call);
      return call;
    } else break;
  }
  p.leave();
  if (path.length === 0) return head;
  return { kind: 'ref', head, path, loc };
}

function callOperator(p: Parser, head: Term, path: Term[], loc: Location): RefTerm | VarTerm {
  if (head.kind !== 'var' || path.some((x) => x.kind !== 'string')) {
    throw p.errorAt('illegal call (operator must be a name)', loc.offset);
  }
  if (path.length === 0) return head;
  return { kind: 'ref', head, path: path.slice(), loc };
}

/** Call = Operator "(" [ InfixTerm { "," InfixTerm } [","] ] ")"; `set()` is the empty set. */
function parseCall(p: Parser, op: RefTerm | VarTerm, loc: Location): Term {
  p.next(); // (
  if (p.tok() === T.RParen) {
    p.next();
    if (op.kind === 'var' && op.name === 'set') return { kind: 'set', items: [], loc } satisfies SetTerm;
    return { kind: 'call', op, args: [], loc } satisfies CallTerm;
  }
  const args = parseTermList(p, T.RParen, []);
  return { kind: 'call', op, args, loc };
}

/** TermList = InfixTerm { "," InfixTerm } [","] End — `End` is consumed. */
function parseTermList(p: Parser, end: T, items: Term[]): Term[] {
  if (p.tok() === end) {
    p.next();
    return items;
  }
  for (;;) {
    items.push(parseTermInfixCallInList(p));
    if (p.tok() === end) {
      p.next();
      return items;
    }
    if (p.tok() !== T.Comma) throw p.illegal(`expected "," or "${end === T.RParen ? ')' : end === T.RBrack ? ']' : '}'}"`);
    p.next();
    if (p.tok() === end) {
      p.next();
      return items;
    }
  }
}

/** Array = "[" [ TermList ] "]" ; ArrayComprehension = "[" Term "|" Body "]". */
function parseArray(p: Parser): Term {
  const loc = p.loc();
  p.next();
  let result: Term;
  if (p.tok() === T.RBrack) {
    p.next();
    result = { kind: 'array', items: [], loc } satisfies ArrayTerm;
  } else {
    const first = collectionHead(p, T.RBrack, (head, body) => ({ kind: 'arraycomp', head, body, loc }));
    if (first.comp) result = first.comp;
    else {
      const head = continueInfix(p, first.head, false);
      if (p.tok() === T.RBrack) {
        p.next();
        result = { kind: 'array', items: [head], loc };
      } else {
        if (p.tok() !== T.Comma) throw p.illegal('expected "," or "]"');
        p.next();
        result = { kind: 'array', items: parseTermList(p, T.RBrack, [head]), loc };
      }
    }
  }
  return result;
}

/**
 * The first element of `[…` or `{…`: its head term, or the whole comprehension when
 * `Term | Body End` follows. A leading `,` rules a comprehension out (as OPA).
 */
function collectionHead(p: Parser, end: T, comprehension: (head: Term, body: Body) => Term): { head: Term; comp?: Term; potentialComprehension: boolean } {
  let potentialComprehension = true;
  if (p.tok() === T.Comma) {
    potentialComprehension = false;
    p.next();
  }
  const head = parseTerm(p);
  if (p.tok() === T.Or && potentialComprehension) {
    const comp = tryComprehension(p, end, (body) => comprehension(head, body));
    if (comp) return { head, comp, potentialComprehension };
  }
  return { head, potentialComprehension };
}

/** At `|`: try `| Body End`; on failure restore to the `|` and return undefined. */
function tryComprehension(p: Parser, end: T, make: (body: Body) => Term): Term | undefined {
  const at = p.lx.start;
  if (p.failedBodies.has(at)) return undefined;
  const r = p.attempt(() => {
    p.next();
    const body = parseBody(p, end);
    p.next(); // end
    return make(body);
  });
  if (!r) p.failedBodies.add(at);
  return r;
}

/** SetOrObject = "{" "}" | Set | Object | SetComprehension | ObjectComprehension. */
function parseSetOrObject(p: Parser): Term {
  const loc = p.loc();
  p.next();
  let result: Term;
  if (p.tok() === T.RBrace) {
    p.next();
    result = { kind: 'object', entries: [], loc } satisfies ObjectTerm;
  } else {
    const first = collectionHead(p, T.RBrace, (head, body) => ({ kind: 'setcomp', head, body, loc }));
    if (first.comp) result = first.comp;
    else {
      let head = first.head;
      if (p.tok() !== T.Colon) head = continueInfix(p, head, false);
      if (p.tok() === T.Colon) result = parseObject(p, head, first.potentialComprehension, loc);
      else if (p.tok() === T.RBrace) {
        p.next();
        result = { kind: 'set', items: [head], loc } satisfies SetTerm;
      } else if (p.tok() === T.Comma) {
        p.next();
        result = { kind: 'set', items: parseTermList(p, T.RBrace, [head]), loc };
      } else throw p.illegal('non-terminated set');
    }
  }
  return result;
}

/** Object = "{" Term ":" Term { "," Term ":" Term } [","] "}" ; ObjectComprehension = "{" Term ":" Term "|" Body "}". */
function parseObject(p: Parser, key: Term, potentialComprehension: boolean, loc: Location): Term {
  p.next(); // :
  let value = parseTerm(p);
  if (p.tok() === T.Or && potentialComprehension) {
    const v = value;
    const comp = tryComprehension(p, T.RBrace, (body) => ({ kind: 'objectcomp', key, value: v, body, loc }));
    if (comp) return comp;
  }
  value = continueInfix(p, value, false);
  const entries: [Term, Term][] = [[key, value]];
  for (;;) {
    if (p.tok() === T.RBrace) {
      p.next();
      return { kind: 'object', entries, loc };
    }
    if (p.tok() !== T.Comma) throw p.illegal('non-terminated object');
    p.next();
    if (p.tok() === T.RBrace) continue;
    const k = parseTermInfixCallInList(p);
    if (p.tok() !== T.Colon) throw p.illegal('expected ":"');
    p.next();
    entries.push([k, parseTermInfixCallInList(p)]);
  }
}

/** Number = [ "-" ] digits [ "." digits ] [ exponent ] ; the text is kept verbatim. */
function parseNumber(p: Parser, prefix: string, start: number): Term {
  if (p.tok() !== T.Number) throw p.illegal('expected number');
  const lit = p.lx.value;
  if (!prefix.endsWith('.') && lit.length > 1 && lit.charCodeAt(0) === 48) {
    const c1 = lit[1];
    if (c1 !== '.' && !((c1 === 'e' || c1 === 'E') && lit.length > 2)) throw p.illegal('expected number without leading zero');
  }
  const text = prefix + lit;
  if (lit.length <= 15 && /^\d+$/.test(lit) && !prefix.endsWith('.')) {
    p.next();
    const n = Number(text);
    return { kind: 'number', value: n === 0 ? 0 : n, text, loc: p.loc(start) };
  }
  const m = /[eE]([+-]?\d+)$/.exec(text);
  if (m && Math.abs(Number(m[1])) > 30000) throw p.errorAt('number too big');
  let value;
  try {
    value = numberValue(text);
  } catch {
    throw p.illegal('invalid float');
  }
  p.next();
  return { kind: 'number', value, text, loc: p.loc(start) };
}

/** Template = ( `$"` | "$`" ) { Chunk "{" TemplateExpr "}" } Chunk ( `"` | "`" ). */
function parseTemplate(p: Parser): Term {
  const loc = p.loc();
  const raw = p.lx.raw;
  const parts: (string | Term)[] = [];
  let withs: Record<number, With[]> | undefined;
  for (;;) {
    const chunk = p.lx.value;
    if (chunk.length > 0) parts.push(chunk);
    if (p.tok() === T.TemplateEnd) {
      p.next();
      break;
    }
    p.next(); // into the embedded expression
    const exprStart = p.lx.start;
    if (p.tok() === T.Not) throw p.errorAt("unexpected negation ('not') in template-string expression");
    if (p.tok() === T.Some) throw p.errorAt("unexpected 'some' in template-string expression");
    if (p.tok() === T.Every) throw p.errorAt("unexpected 'every' in template-string expression");
    if (p.tok() === T.RBrace) throw p.errorAt('invalid template-string expression');
    const term = parseTermInfixCall(p);
    if (p.tok() === T.Unify) throw p.errorAt("unexpected unification ('=') in template-string expression", exprStart);
    if (p.tok() === T.Assign) throw p.errorAt("unexpected assignment (':=') in template-string expression", exprStart);
    if (p.tok() === T.With) {
      withs ??= {};
      withs[parts.length] = parseWith(p);
    }
    parts.push(term);
    if (p.tok() !== T.RBrace) throw p.errorAt('expected } to end template string expression');
    p.lx.continueTemplate(raw);
  }
  const t: TemplateTerm = { kind: 'template', parts, loc };
  if (withs) t.withs = withs;
  if (raw) t.raw = true;
  return t;
}
