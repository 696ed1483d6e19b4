// Pass `rewrite-rego-metadata-calls` (OPA's SetAnnotationSet + RewriteRegoMetadataCalls
// stages): build the program's annotation set (annotation-set.ts), then replace
// every call of `rego.metadata.chain()` / `rego.metadata.rule()` inside a rule —
// head key/value/ref, body, comprehension and `every` bodies, `not { … }`, `with`
// values — by the constant it has for that rule. The result is plain AST, so every
// back end (generated JS, closures, reference interpreter) sees the same constants.
//   p if { m := rego.metadata.rule() }   →   p if { m := {"scope": "rule", "title": "T"} }
//   rego.metadata.chain(x)               →   x = [{"path": ["a", "p"]}, …]
// `else` branches are rules of their own here, as in OPA: they have no rule-scope
// annotations, so rule() is {} and the chain starts with an entry without any.
// Default rules are left alone (their value must already be a constant).
// Queries are not rewritten: there the builtins raise OPA's "must only be called
// within the scope of a rule" error (runtime/builtins/rego.ts).
import type { Body, CallTerm, Expr, Module, Rule, Term } from '../ast/nodes.js';
import { mapTerm, refName } from '../ast/transform.js';
import { walkTerms } from '../ast/walk.js';
import type { Location } from '../source/location.js';
import type { Pass } from './pass.js';
import { packagePath } from './pass.js';
import { AnnotationSet, rulePath, type Json } from './annotation-set.js';

const CHAIN = 'rego.metadata.chain';
const RULE = 'rego.metadata.rule';

export const rewriteRegoMetadataCalls: Pass = {
  name: 'rewrite-rego-metadata-calls',
  run(state) {
    const set = new AnnotationSet(state.modules, state.errors);
    if (state.errors.length > 0 || !state.modules.some(callsMetadata)) return;
    state.modules = state.modules.map((m) => rewriteModule(m, set));
  },
  dump: (state) => state.modules,
};

/** The metadata builtin a call term invokes, if any. */
function metadataCall(t: Term): typeof CHAIN | typeof RULE | undefined {
  if (t.kind !== 'call') return undefined;
  const name = refName(t.op);
  return name === CHAIN || name === RULE ? name : undefined;
}

function callsMetadata(m: Module): boolean {
  let found = false;
  walkTerms(m, (t) => {
    if (metadataCall(t)) found = true;
    return !found;
  });
  return found;
}

function rewriteModule(m: Module, set: AnnotationSet): Module {
  const pkg = packagePath(m);
  const rules = m.rules.map((r) => (r.default ? r : rewriteRule(r, new RuleConstants(set, r, pkg, rulePath(pkg, r)))));
  return { ...m, rules };
}

/** The two constants of one rule, built on first use. */
class RuleConstants {
  private chainValue?: Json;
  private ruleValue?: Json;
  constructor(
    readonly set: AnnotationSet,
    readonly rule: Rule,
    readonly pkg: string[],
    readonly path: string[],
  ) {}

  term(which: typeof CHAIN | typeof RULE, loc: Location): Term {
    if (which === CHAIN) return jsonTerm((this.chainValue ??= this.set.chain(this.rule, this.pkg, this.path)), loc);
    return jsonTerm((this.ruleValue ??= this.set.rule(this.rule)), loc);
  }

  /** The same for this rule's `else` branch (a rule of its own, without annotations). */
  forElse(r: Rule): RuleConstants {
    return new RuleConstants(this.set, r, this.pkg, this.path);
  }
}

function rewriteRule(r: Rule, k: RuleConstants): Rule {
  const term = (t: Term) => rewriteTerm(t, k);
  const h = r.head;
  return {
    ...r,
    head: {
      ...h,
      ref: h.ref.map((t, i) => (i === 0 ? t : term(t))),
      args: h.args?.map(term),
      key: h.key && term(h.key),
      value: h.value && term(h.value),
    },
    body: rewriteBody(r.body, k),
    else: r.else && rewriteRule(r.else, k.forElse(r.else)),
  };
}

function rewriteBody(body: Body, k: RuleConstants): Body {
  return body.map((e) => rewriteExpr(e, k));
}

function rewriteExpr(e: Expr, k: RuleConstants): Expr {
  const term = (t: Term) => rewriteTerm(t, k);
  const out: Expr = { ...e, with: e.with.map((w) => ({ ...w, value: term(w.value) })) };
  if (e.notBody) out.notBody = rewriteBody(e.notBody, k);
  const b = e.body;
  switch (b.type) {
    case 'term': {
      const which = metadataCall(b.term);
      const t = b.term as CallTerm;
      // `rego.metadata.chain(x)`: the extra argument is the output, as for any call.
      if (which && t.args.length === 1) {
        const op = { kind: 'var' as const, name: 'eq', loc: t.loc };
        out.body = { type: 'term', term: { kind: 'call', op, args: [term(t.args[0]!), k.term(which, t.loc)], loc: t.loc } };
      } else out.body = { type: 'term', term: term(b.term) };
      break;
    }
    case 'some':
      break;
    case 'somein':
      out.body = { ...b, key: b.key && term(b.key), value: term(b.value), collection: term(b.collection) };
      break;
    case 'every':
      out.body = { ...b, domain: term(b.domain), body: rewriteBody(b.body, k) };
      break;
  }
  return out;
}

function rewriteTerm(t: Term, k: RuleConstants): Term {
  return mapTerm(t, (x) => {
    const which = metadataCall(x);
    if (which && (x as CallTerm).args.length === 0) return k.term(which, x.loc);
    switch (x.kind) {
      case 'arraycomp':
      case 'setcomp':
        return { ...x, head: rewriteTerm(x.head, k), body: rewriteBody(x.body, k) };
      case 'objectcomp':
        return { ...x, key: rewriteTerm(x.key, k), value: rewriteTerm(x.value, k), body: rewriteBody(x.body, k) };
      default:
        return undefined;
    }
  });
}

/** A JSON value as a constant AST term at `loc`. */
export function jsonTerm(v: Json, loc: Location): Term {
  if (v === null) return { kind: 'null', loc };
  if (typeof v === 'boolean') return { kind: 'boolean', value: v, loc };
  if (typeof v === 'number') return { kind: 'number', value: v, text: String(v), loc };
  if (typeof v === 'string') return { kind: 'string', value: v, loc };
  if (Array.isArray(v)) return { kind: 'array', items: v.map((x) => jsonTerm(x, loc)), loc };
  return { kind: 'object', entries: Object.entries(v).map(([key, x]) => [{ kind: 'string', value: key, loc }, jsonTerm(x, loc)] as [Term, Term]), loc };
}
