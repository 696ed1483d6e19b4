// Our AST → OPA's JSON AST, exactly as OPA serializes its ast.Module (`opa parse
// --format json`). Terms are `{type, value}`; an expression whose top is a call has
// `terms` = [operator ref, args…]; operators keep OPA's builtin names (our parser
// already desugars `==` to `equal`, `:=` to `assign`, `=` to `eq`, `in` to
// `internal.member_N`); wildcards `$_N` print as OPA's `$N`; objects and sets are
// sorted in OPA's term order; rules without a body get OPA's generated `true` body
// and `p if …` heads the generated value `true`. Locations (`{file,row,col}`) are
// included only with `{ locations: true }`; comments are included unless
// `{ comments: false }` (Go field names `Text` (base64) / `Location`, as OPA).
import type { Annotation, Body, Comment, Expr, Import, Location, Module, Package, Rule, RuleHead, Term, With } from './nodes.js';
import { OpaJSONNumber, sortedEntries, sortedSet } from './term-order.js';

export { termToValue, stringifyOpaJSON, OpaJSONNumber } from './term-order.js';

export interface OpaJSONOptions {
  /** Include `location` on every node. Default false. */
  locations?: boolean;
  /** Include the module's comments. Default true. */
  comments?: boolean;
}

type J = Record<string, unknown>;

class Writer {
  constructor(readonly opts: OpaJSONOptions) {}

  loc(l: Location | undefined): J | undefined {
    if (!this.opts.locations || !l) return undefined;
    return { file: l.file, row: l.row, col: l.col };
  }

  /** A term object: `location` (optional), `type`, `value` (Go's sorted map keys). */
  t(type: string, value: unknown, l: Location | undefined): J {
    const loc = this.loc(l);
    return loc ? { location: loc, type, value } : { type, value };
  }

  term(t: Term): J {
    switch (t.kind) {
      case 'null': return this.t('null', {}, t.loc);
      case 'boolean': return this.t('boolean', t.value, t.loc);
      case 'number': return this.t('number', numberValue(t.text), t.loc);
      case 'string': return this.t('string', t.value, t.loc);
      case 'var': return this.t('var', varName(t.name), t.loc);
      case 'ref': return this.t('ref', [t.head, ...t.path].map((x) => this.term(x)), t.loc);
      case 'array': return this.t('array', t.items.map((x) => this.term(x)), t.loc);
      case 'set': return this.t('set', sortedSet(t.items).map((x) => this.term(x)), t.loc);
      case 'object':
        return this.t('object', sortedEntries(t.entries).map(([k, v]) => [this.term(k), this.term(v)]), t.loc);
      case 'arraycomp': return this.t('arraycomprehension', { term: this.term(t.head), body: this.body(t.body) }, t.loc);
      case 'setcomp': return this.t('setcomprehension', { term: this.term(t.head), body: this.body(t.body) }, t.loc);
      case 'objectcomp':
        return this.t('objectcomprehension', { key: this.term(t.key), value: this.term(t.value), body: this.body(t.body) }, t.loc);
      case 'call': return this.t('call', this.callTerms(t), t.loc);
      case 'template': {
        const parts = t.parts.map((p, i) => {
          if (typeof p === 'string') return this.t('string', p, t.loc);
          const e: J = { index: 0 };
          const loc = this.loc(p.loc);
          if (loc) e.location = loc;
          e.terms = p.kind === 'call' ? this.callTerms(p) : this.term(p);
          const ws = t.withs?.[i];
          if (ws?.length) e.with = ws.map((w) => this.with(w));
          return e;
        });
        return this.t('templatestring', { parts, multi_line: t.raw === true }, t.loc);
      }
    }
  }

  /** The operator (always a ref, as OPA) followed by the arguments. */
  callTerms(t: Term & { kind: 'call' }): J[] {
    return [this.refTerm(t.op), ...t.args.map((a) => this.term(a))];
  }

  /** A var term as a one-element ref (operators, `with` targets, import paths). */
  refTerm(t: Term): J {
    if (t.kind === 'var') return this.t('ref', [this.term(t)], t.loc);
    return this.term(t);
  }

  with(w: With): J {
    const loc = this.loc(w.loc);
    return { ...(loc ? { location: loc } : {}), target: this.refTerm(w.target), value: this.term(w.value) };
  }

  body(b: Body): J[] {
    return b.map((e, i) => this.expr(e, i));
  }

  expr(e: Expr, index: number): J {
    let terms: unknown;
    const b = e.body;
    if (e.notBody) {
      terms = { type: 'not', body: this.body(e.notBody), explicit_body: true };
    } else {
      switch (b.type) {
        case 'term':
          terms = b.term.kind === 'call' ? this.callTerms(b.term) : this.term(b.term);
          break;
        case 'some': {
          const loc = this.loc(e.loc);
          terms = { ...(loc ? { location: loc } : {}), symbols: b.vars.map((v) => this.term(v)) };
          break;
        }
        case 'somein': {
          const args = [...(b.key ? [b.key] : []), b.value, b.collection];
          const op = b.key ? 'internal.member_3' : 'internal.member_2';
          const call = this.t('call', [this.memberRef(op, e.loc), ...args.map((a) => this.term(a))], e.loc);
          const loc = this.loc(e.loc);
          terms = { ...(loc ? { location: loc } : {}), symbols: [call] };
          break;
        }
        case 'every': {
          const loc = this.loc(e.loc);
          terms = {
            body: this.body(b.body),
            domain: this.term(b.domain),
            key: b.key ? this.term(b.key) : null,
            ...(loc ? { location: loc } : {}),
            value: this.term(b.value),
          };
          break;
        }
      }
    }
    const out: J = { index };
    const loc = this.loc(e.loc);
    if (loc) out.location = loc;
    if (e.negated && !e.notBody) out.negated = true;
    out.terms = terms;
    if (e.with.length) out.with = e.with.map((w) => this.with(w));
    return out;
  }

  /** `internal.member_2` as OPA's ref [var internal, string member_2]. */
  memberRef(name: string, l: Location): J {
    const [head, tail] = name.split('.');
    return this.t('ref', [this.t('var', head, l), this.t('string', tail, l)], l);
  }

  head(h: RuleHead, regoVersion: 0 | 1, isDefault: boolean): J {
    const out: J = {};
    const ref = h.ref;
    if (ref.length === 1 && ref[0]!.kind === 'var') out.name = ref[0]!.name;
    if (h.args) out.args = h.args.map((a) => this.term(a));
    let key: Term | undefined = h.contains ? h.key : undefined;
    // v0 `p[k] = v`: OPA keeps the key on the head as well as in the ref.
    if (!key && regoVersion === 0 && ref.length === 2 && h.value && !h.args && ref[0]!.kind === 'var' && ref[1]!.kind !== 'string') {
      out.name = ref[0]!.name;
      key = ref[1];
    }
    if (key) out.key = this.term(key);
    if (h.value) out.value = this.term(h.value);
    else if (!h.contains || isDefault) out.value = this.t('boolean', true, h.loc);
    if (h.assign) out.assign = true;
    out.ref = ref.map((t) => this.term(t));
    const loc = this.loc(h.loc);
    if (loc) out.location = loc;
    return out;
  }

  rule(r: Rule, regoVersion: 0 | 1, parent?: RuleHead): J {
    const out: J = {};
    if (r.annotations?.length) out.annotations = r.annotations.map((a) => this.annotation(a));
    out.body = r.body.length ? this.body(r.body) : [{ index: 0, ...this.locField(r.loc), terms: this.t('boolean', true, r.loc) }];
    if (r.default) out.default = true;
    if (r.else) out.else = this.rule(r.else, regoVersion, parent ?? r.head);
    const head: RuleHead = parent ? { ...r.head, ref: parent.ref, args: parent.args, contains: false } : r.head;
    out.head = this.head(head, regoVersion, r.default);
    const loc = this.loc(r.loc);
    if (loc) out.location = loc;
    return out;
  }

  locField(l: Location): J {
    const loc = this.loc(l);
    return loc ? { location: loc } : {};
  }

  pkg(p: Package): J {
    return { ...this.locField(p.loc), path: p.path.map((t) => this.term(t)) };
  }

  import(i: Import): J {
    return { ...(i.alias ? { alias: i.alias } : {}), ...this.locField(i.loc), path: this.refTerm(i.path) };
  }

  annotation(a: Annotation): J {
    const out: J = {};
    if (a.authors?.length) out.authors = a.authors.map((x) => ({ ...(x.name ? { name: x.name } : {}), ...(x.email ? { email: x.email } : {}) }));
    if (a.custom && Object.keys(a.custom).length) out.custom = a.custom;
    if (a.description) out.description = a.description;
    if (a.entrypoint) out.entrypoint = true;
    Object.assign(out, this.locField(a.loc));
    if (a.organizations?.length) out.organizations = a.organizations;
    if (a.related_resources?.length) out.related_resources = a.related_resources;
    if (a.schemas?.length) {
      out.schemas = a.schemas.map((s) => ({
        path: s.path.split('.').map((p, i) => (i === 0 ? this.t('var', p, a.loc) : this.t('string', p, a.loc))),
        ...(s.schema !== undefined ? { schema: s.schema } : {}),
        ...(s.definition !== undefined ? { definition: s.definition } : {}),
      }));
    }
    out.scope = a.scope ?? '';
    if (a.title) out.title = a.title;
    return out;
  }

  comment(c: Comment): J {
    return { Text: Buffer.from(c.text, 'utf8').toString('base64'), Location: { file: c.loc.file, row: c.loc.row, col: c.loc.col } };
  }

  module(m: Module): J {
    const out: J = { package: this.pkg(m.package) };
    if (m.imports.length) out.imports = m.imports.map((i) => this.import(i));
    if (m.annotations.length) out.annotations = m.annotations.map((a) => this.annotation(a));
    if (m.rules.length) out.rules = m.rules.map((r) => this.rule(r, m.regoVersion));
    if (this.opts.comments !== false && m.comments.length) out.comments = m.comments.map((c) => this.comment(c));
    return out;
  }
}

function varName(name: string): string {
  return name.startsWith('$_') ? '$' + name.slice(2) : name;
}

function numberValue(text: string): number | OpaJSONNumber {
  const n = Number(text);
  return Number.isFinite(n) && JSON.stringify(n) === text ? n : new OpaJSONNumber(text);
}

/** OPA's JSON AST of a module (an `ast.Module` marshalled). */
export function moduleToJSON(m: Module, opts: OpaJSONOptions = {}): J {
  return new Writer(opts).module(m);
}

/** OPA's JSON of a body (query): an array of expressions with their index. */
export function bodyToJSON(b: Body, opts: OpaJSONOptions = {}): J[] {
  return new Writer(opts).body(b);
}

/** OPA's JSON of a term: `{type, value}`. */
export function termToJSON(t: Term, opts: OpaJSONOptions = {}): J {
  return new Writer(opts).term(t);
}
