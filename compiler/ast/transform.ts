// Structural rewriting of terms and bodies: `mapTerm` rebuilds a term bottom-up,
// letting a callback replace any node; bodies nested in comprehensions and
// `every` are rewritten by the same callback.
import type { Body, Expr, Term, With } from './nodes.js';

export type TermMapper = (t: Term) => Term | undefined;

/** Rewrite a term: `fn` may return a replacement (not recursed into) or undefined. */
export function mapTerm(t: Term, fn: TermMapper): Term {
  const r = fn(t);
  if (r !== undefined) return r;
  switch (t.kind) {
    case 'ref':
      return { ...t, head: mapTerm(t.head, fn), path: t.path.map((p) => mapTerm(p, fn)) };
    case 'array':
    case 'set':
      return { ...t, items: t.items.map((x) => mapTerm(x, fn)) };
    case 'object':
      return { ...t, entries: t.entries.map(([k, v]) => [mapTerm(k, fn), mapTerm(v, fn)] as [Term, Term]) };
    case 'arraycomp':
    case 'setcomp':
      return { ...t, head: mapTerm(t.head, fn), body: mapBody(t.body, fn) };
    case 'objectcomp':
      return { ...t, key: mapTerm(t.key, fn), value: mapTerm(t.value, fn), body: mapBody(t.body, fn) };
    case 'call': {
      const op = mapTerm(t.op, fn);
      return { ...t, op: op.kind === 'ref' || op.kind === 'var' ? op : t.op, args: t.args.map((x) => mapTerm(x, fn)) };
    }
    case 'template':
      return { ...t, parts: t.parts.map((p) => (typeof p === 'string' ? p : mapTerm(p, fn))) };
    default:
      return t;
  }
}

export function mapBody(body: Body, fn: TermMapper): Body {
  return body.map((e) => mapExpr(e, fn));
}

export function mapExpr(e: Expr, fn: TermMapper): Expr {
  const w: With[] = e.with.map((x) => {
    const target = mapTerm(x.target, fn);
    return { ...x, target: target.kind === 'ref' || target.kind === 'var' ? target : x.target, value: mapTerm(x.value, fn) };
  });
  // `not { … }` (rego.v2): its body is rewritten like any other.
  if (e.notBody) e = { ...e, notBody: mapBody(e.notBody, fn) };
  const b = e.body;
  switch (b.type) {
    case 'term':
      return { ...e, with: w, body: { type: 'term', term: mapTerm(b.term, fn) } };
    case 'some':
      return { ...e, with: w };
    case 'somein':
      return {
        ...e,
        with: w,
        body: { type: 'somein', key: b.key && mapTerm(b.key, fn), value: mapTerm(b.value, fn), collection: mapTerm(b.collection, fn) },
      };
    case 'every':
      return { ...e, with: w, body: { ...b, domain: mapTerm(b.domain, fn), body: mapBody(b.body, fn) } };
  }
}

/** Visit every term (pre-order), including those in nested bodies. */
export function forEachTerm(t: Term, fn: (t: Term) => void): void {
  mapTerm(t, (x) => {
    fn(x);
    return undefined;
  });
}

/** The dotted name of a call operator or ref of plain names: `io.jwt.decode`. */
export function refName(t: Term): string | undefined {
  if (t.kind === 'var') return t.name;
  if (t.kind !== 'ref' || t.head.kind !== 'var') return undefined;
  let s = t.head.name;
  for (const p of t.path) {
    if (p.kind !== 'string') return undefined;
    s += '.' + p.value;
  }
  return s;
}
