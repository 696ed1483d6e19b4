// Shared helpers for parser tests: location stripping and compact term rendering.
import type { Term } from '../../../compiler/ast/nodes.js';
import { parseModule, parseQuery, parseTerm } from '../../../compiler/parser/index.js';
import { RegoErrors } from '../../../compiler/source/diagnostics.js';

/** Deep copy without `loc` fields (and with BigNum values rendered as strings). */
export function strip<T>(x: T): unknown {
  return JSON.parse(JSON.stringify(x, (k, v) => (k === 'loc' ? undefined : typeof v === 'object' && v && 'dec' in v ? String(v) : v)));
}

/** A compact S-expression rendering of a term: calls as `op(a, b)`, refs as `h.p[…]`. */
export function sx(t: Term): string {
  switch (t.kind) {
    case 'null': return 'null';
    case 'boolean': return String(t.value);
    case 'number': return t.text;
    case 'string': return JSON.stringify(t.value);
    case 'var': return t.name;
    case 'ref': return sx(t.head) + t.path.map((p) => `[${sx(p)}]`).join('');
    case 'array': return `[${t.items.map(sx).join(', ')}]`;
    case 'set': return `set(${t.items.map(sx).join(', ')})`;
    case 'object': return `{${t.entries.map(([k, v]) => `${sx(k)}: ${sx(v)}`).join(', ')}}`;
    case 'call': return `${sx(t.op)}(${t.args.map(sx).join(', ')})`;
    case 'arraycomp': return `arraycomp(${sx(t.head)})`;
    case 'setcomp': return `setcomp(${sx(t.head)})`;
    case 'objectcomp': return `objectcomp(${sx(t.key)}: ${sx(t.value)})`;
    case 'template': return `template(${t.parts.map((p) => (typeof p === 'string' ? JSON.stringify(p) : sx(p))).join(', ')})`;
  }
}

/** Parse a query of one term expression and render it. */
export function q(src: string): string {
  const body = parseQuery(src);
  const e = body[0]!;
  if (e.body.type !== 'term') throw new Error('not a term expression');
  return sx(e.body.term);
}

export function t(src: string): string {
  return sx(parseTerm(src));
}

/** The errors thrown by `fn` (fails the test if nothing or something untyped is thrown). */
export function errorsOf(fn: () => unknown): { message: string; row: number; col: number; code: string }[] {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof RegoErrors)) throw new Error(`expected RegoErrors, got ${String(e)}`);
    return e.errors.map((x) => ({ message: x.message, row: x.location?.row ?? -1, col: x.location?.col ?? -1, code: x.code }));
  }
  throw new Error('expected a parse error');
}

export function mod(src: string, v0 = false) {
  return parseModule(src, 'test.rego', v0 ? { v0Compatible: true } : {});
}
