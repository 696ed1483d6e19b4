// Helpers for OPA's JSON AST (opa-json.ts): OPA's total order over AST terms
// (ast.Compare — objects and sets serialize in this order), ground term → runtime
// Value conversion, and a JSON writer that keeps number literals exactly as written.
import type { Body, Term } from './nodes.js';
import type { Value } from '../../runtime/value/value.js';
import { RObject, RSet } from '../../runtime/value/collections.js';
import { compareNumbers } from '../../runtime/value/number.js';
import { compareStrings } from '../../runtime/value/compare.js';

/** A number literal whose text does not survive a round trip through a JS number. */
export class OpaJSONNumber {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

/** OPA's sort rank of each value kind (ast/compare.go sortOrder). */
function rank(t: Term): number {
  switch (t.kind) {
    case 'null': return 0;
    case 'boolean': return 1;
    case 'number': return 2;
    case 'string': return 3;
    case 'var': return 4;
    case 'ref': return 5;
    case 'array': return 6;
    case 'object': return 7;
    case 'set': return 8;
    case 'arraycomp': return 9;
    case 'objectcomp': return 10;
    case 'setcomp': return 11;
    case 'call': return 12;
    case 'template': return 13;
  }
}

function compareLists(a: Term[], b: Term[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareTerms(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function refParts(t: Term & { kind: 'ref' }): Term[] {
  return [t.head, ...t.path];
}

function opTerm(t: Term & { kind: 'call' }): Term {
  return t.op.kind === 'var' ? { kind: 'ref', head: t.op, path: [], loc: t.op.loc } : t.op;
}

function bodyKey(b: Body): string {
  return JSON.stringify(b, (k, v) => (k === 'loc' ? undefined : typeof v === 'bigint' ? String(v) : v));
}

/** Deduplicated, sorted set members (as OPA stores a set). */
export function sortedSet(items: Term[]): Term[] {
  const out = [...items].sort(compareTerms);
  return out.filter((t, i) => i === 0 || compareTerms(out[i - 1]!, t) !== 0);
}

/** Object entries sorted by key; a repeated key keeps its last value (as OPA's Insert). */
export function sortedEntries(entries: [Term, Term][]): [Term, Term][] {
  const out: [Term, Term][] = [];
  for (const e of entries) {
    const i = out.findIndex(([k]) => compareTerms(k, e[0]) === 0);
    if (i >= 0) out[i] = [out[i]![0], e[1]];
    else out.push(e);
  }
  return out.sort((a, b) => compareTerms(a[0], b[0]));
}

/** OPA's ast.Compare over terms (locations ignored). */
export function compareTerms(a: Term, b: Term): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (a.kind) {
    case 'null': return 0;
    case 'boolean': {
      const y = (b as typeof a).value;
      return a.value === y ? 0 : a.value ? 1 : -1;
    }
    case 'number': return compareNumbers(a.value, (b as typeof a).value);
    case 'string': return compareStrings(a.value, (b as typeof a).value);
    case 'var': return compareStrings(a.name, (b as typeof a).name);
    case 'ref': return compareLists(refParts(a), refParts(b as typeof a));
    case 'array': return compareLists(a.items, (b as typeof a).items);
    case 'set': return compareLists(sortedSet(a.items), sortedSet((b as typeof a).items));
    case 'object': {
      const x = sortedEntries(a.entries);
      const y = sortedEntries((b as typeof a).entries);
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compareTerms(x[i]![0], y[i]![0]) || compareTerms(x[i]![1], y[i]![1]);
        if (c !== 0) return c;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    case 'arraycomp':
    case 'setcomp': {
      const o = b as typeof a;
      return compareTerms(a.head, o.head) || compareStrings(bodyKey(a.body), bodyKey(o.body));
    }
    case 'objectcomp': {
      const o = b as typeof a;
      return compareTerms(a.key, o.key) || compareTerms(a.value, o.value) || compareStrings(bodyKey(a.body), bodyKey(o.body));
    }
    case 'call': {
      const o = b as typeof a;
      return compareLists([opTerm(a), ...a.args], [opTerm(o), ...o.args]);
    }
    case 'template':
      return compareStrings(bodyKey([a as never]), bodyKey([b as never]));
  }
}

/** True when a term contains no variables, refs, calls or comprehensions. */
export function isGroundTerm(t: Term): boolean {
  switch (t.kind) {
    case 'null': case 'boolean': case 'number': case 'string': return true;
    case 'array': case 'set': return t.items.every(isGroundTerm);
    case 'object': return t.entries.every(([k, v]) => isGroundTerm(k) && isGroundTerm(v));
    default: return false;
  }
}

/** The runtime value of a ground term. Throws for terms that need evaluation. */
export function termToValue(t: Term): Value {
  switch (t.kind) {
    case 'null': return null;
    case 'boolean': return t.value;
    case 'number': return t.value;
    case 'string': return t.value;
    case 'array': return t.items.map(termToValue);
    case 'set': return RSet.of(t.items.map(termToValue));
    case 'object': return RObject.fromEntries(t.entries.map(([k, v]) => [termToValue(k), termToValue(v)]));
    default: throw new Error(`termToValue: ${t.kind} term is not ground`);
  }
}

function quoteJSON(s: string): string {
  // As Go's encoding/json: HTML-sensitive characters and line separators escaped.
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/**
 * JSON text of an OPA JSON AST (the output of moduleToJSON & co): keys in insertion
 * order, OpaJSONNumber written verbatim. `indent` '' gives compact output.
 */
export function stringifyOpaJSON(x: unknown, indent = '  ', cur = ''): string {
  if (x === null || x === undefined) return 'null';
  if (x instanceof OpaJSONNumber) return x.text;
  switch (typeof x) {
    case 'boolean': return x ? 'true' : 'false';
    case 'number': return Number.isFinite(x) ? JSON.stringify(x) : 'null';
    case 'string': return quoteJSON(x);
  }
  const inner = cur + indent;
  const nl = indent ? '\n' : '';
  const sep = indent ? ': ' : ':';
  const wrap = (items: string[], open: string, close: string): string =>
    items.length === 0 ? open + close : `${open}${nl}${items.map((s) => inner + s).join(',' + nl)}${nl}${cur}${close}`;
  if (Array.isArray(x)) return wrap(x.map((v) => stringifyOpaJSON(v, indent, inner)), '[', ']');
  const entries = Object.entries(x as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return wrap(entries.map(([k, v]) => quoteJSON(k) + sep + stringifyOpaJSON(v, indent, inner)), '{', '}');
}
