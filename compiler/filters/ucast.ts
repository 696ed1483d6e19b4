// Residual queries → UCAST condition trees (OPA's internal/compile ucast), and the
// table/column mappings (`options.targetSQLTableMappings`).
//
// Each residual expression is a call with an unknown `input.<table>.<column>`
// operand. It becomes a field node `{type: "field", field, operator, value}`:
//   * field: the ref without `input`, joined with `.`, then mapped;
//   * operator: eq, ne (neq), lt, lte, gt, gte, in (internal.member_2),
//     startswith, endswith, contains;
//   * value: the literal (sets sorted), `{field: …}` for a second column, or null
//     with operator ne for `input.t.c = _` (IS NOT NULL).
// When the unknown is on the right the operands are swapped and the comparison is
// changed by OPA's table lt→gte, lte→gt, gt→lte, gte→lt (which is off at equality:
// `10 <= x` becomes `x > 10`); `mirrorComparisons` selects the correct mirror
// (lt→gt, lte→gte) instead. A negated expression becomes `not [node]`; several
// expressions `and`, several bodies `or`, in order, nothing flattened. An empty
// body means unconditional YES (undefined tree); no bodies at all is handled by
// the caller (unconditional NO). Where OPA's translator silently drops an
// expression it cannot represent (turning the filter into YES), this one throws a
// FilterError instead: a filter must never allow more than the policy.
import type { Expr, RefTerm, Term } from '../ast/nodes.js';
import { termToValue } from '../ast/term-order.js';
import { RObject, RSet, type Value } from '../../runtime/value/value.js';
import { FilterError } from './constraints.js';
import { exprCall, exprText, filterOp, refSegments } from './term-text.js';

/** A second column as the value of a field node. */
export class FieldRef {
  constructor(readonly field: string) {}
}

export interface UcastField {
  type: 'field';
  field: string;
  operator: string;
  /** A Rego value (number exactness kept), a FieldRef, or null. */
  value: Value | FieldRef;
}

export interface UcastCompound {
  type: 'compound';
  operator: 'and' | 'or' | 'not';
  value: UcastNode[];
}

export type UcastNode = UcastField | UcastCompound;

/** Mappings: table name → {$self?, $table?, column → new column}. */
export type TableMappings = Record<string, unknown>;

export interface UcastOptions {
  mappings?: TableMappings;
  /** Mirror comparisons correctly when the unknown is on the right (OPA negates them). */
  mirrorComparisons?: boolean;
}

const OPA_FLIP: Record<string, string> = { lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt' };
const MIRROR: Record<string, string> = { lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte' };
const REF_OK = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte']);
const OPERATORS: Record<string, string> = {
  eq: 'eq', neq: 'ne', lt: 'lt', lte: 'lte', gt: 'gt', gte: 'gte',
  'internal.member_2': 'in', startswith: 'startswith', endswith: 'endswith', contains: 'contains',
};

/** The UCAST tree of the residual bodies; undefined means unconditional YES. */
export function queriesToUcast(queries: Expr[][], opts: UcastOptions = {}): UcastNode | undefined {
  if (queries.length === 0) throw new FilterError('no queries: the filter is unconditionally false');
  const nodes: UcastNode[] = [];
  for (const body of queries) {
    const node = bodyToUcast(body, opts);
    if (node === undefined) return undefined; // one body always true: the whole filter is
    nodes.push(node);
  }
  return nodes.length === 1 ? nodes[0] : { type: 'compound', operator: 'or', value: nodes };
}

function bodyToUcast(body: Expr[], opts: UcastOptions): UcastNode | undefined {
  if (body.length === 0) return undefined;
  const nodes = body.map((e) => exprToUcast(e, opts));
  return nodes.length === 1 ? nodes[0] : { type: 'compound', operator: 'and', value: nodes };
}

function exprToUcast(e: Expr, opts: UcastOptions): UcastNode {
  const call = exprCall(e);
  const cannot = (why: string) => new FilterError(`cannot translate "${exprText(e)}": ${why}`);
  if (!call || e.with.length > 0) throw cannot('not a call');
  const name = filterOp(call);
  let op = OPERATORS[name];
  if (op === undefined) throw cannot(`unsupported operator ${name}`);
  const [a, b] = call.args;
  if (a === undefined || b === undefined) throw cannot('missing operand');
  let field: RefTerm;
  let other: Term;
  if (a.kind === 'ref') {
    field = a;
    other = b;
  } else if (b.kind === 'ref') {
    field = b;
    other = a;
    op = (opts.mirrorComparisons ? MIRROR[op] : OPA_FLIP[op]) ?? op;
  } else throw cannot('no unknown operand');
  let value: Value | FieldRef;
  if (other.kind === 'ref') {
    if (!REF_OK.has(name)) throw cannot(`${name} against a column`);
    value = new FieldRef(refToField(other, opts.mappings));
  } else if (other.kind === 'var') {
    if (op !== 'eq') throw cannot('unbound variable operand');
    op = 'ne'; // `input.t.c = _`: the column exists, i.e. IS NOT NULL
    value = null;
  } else {
    try {
      value = termToValue(other);
    } catch {
      throw cannot('operand is not a value');
    }
  }
  const node: UcastField = { type: 'field', field: refToField(field, opts.mappings), operator: op, value };
  return e.negated ? { type: 'compound', operator: 'not', value: [node] } : node;
}

/** `input.fruits.name` → `fruits.name`, then mapped. */
export function refToField(r: RefTerm, mappings: TableMappings | undefined): string {
  const segs = refSegments(r);
  if (!segs) throw new FilterError(`unexpected term in ref ${exprTextOfRef(r)}`);
  return translateField(segs.join('.'), mappings);
}

function exprTextOfRef(r: RefTerm): string {
  return exprText({ kind: 'expr', negated: false, body: { type: 'term', term: r }, with: [], loc: r.loc });
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Rename `table.column` (or a short `name`) by the mappings: a `$table` entry
 * makes a short name the column of that table; `$self` renames the table, a
 * column entry the column. Non-string entries are ignored here (validated earlier).
 */
export function translateField(field: string, mappings: TableMappings | null | undefined): string {
  if (!mappings) return field;
  const dot = field.indexOf('.');
  let table = dot < 0 ? field : field.slice(0, dot);
  let column = dot < 0 ? '' : field.slice(dot + 1);
  let hasColumn = dot >= 0;
  let outTable = table;
  let outColumn = column;
  const short = mappings[table];
  if (isMap(short) && '$table' in short && typeof short.$table === 'string') {
    outTable = short.$table;
    column = table;
    table = short.$table;
    hasColumn = true;
    outColumn = column;
  }
  const m = mappings[table];
  if (isMap(m)) {
    if (typeof m.$self === 'string') outTable = m.$self;
    if (hasColumn && typeof m[column] === 'string') outColumn = m[column] as string;
  }
  return hasColumn ? `${outTable}.${outColumn}` : outTable;
}

/**
 * The mappings for one target: `mappings[dialect]`, else `mappings[target]`,
 * else the whole object as a flat table map. Throws FilterError (prefixed
 * `mappings: `) for wrappers that are not maps and non-string names.
 */
export function lookupMappings(mappings: TableMappings | null | undefined, target: string, dialect: string): TableMappings | undefined {
  if (!mappings) return undefined;
  let chosen: TableMappings = mappings;
  const byDialect = mappings[dialect];
  const byTarget = mappings[target];
  if (byDialect !== undefined && byDialect !== null) {
    if (!isMap(byDialect)) throw new FilterError(`mappings: invalid mappings for dialect ${dialect}`);
    chosen = byDialect;
  } else if (byTarget !== undefined && byTarget !== null) {
    if (!isMap(byTarget)) throw new FilterError(`mappings: invalid mappings for target ${target}`);
    chosen = byTarget;
  }
  const flat = chosen === mappings;
  for (const [table, m] of Object.entries(chosen)) {
    if (!isMap(m) || (flat && WRAPPER_KEYS.has(table))) continue; // another target's wrapper
    for (const [k, v] of Object.entries(m)) {
      if (typeof v !== 'string') throw new FilterError(`mappings: invalid mappings: ${table}.${k}: expected string, got ${goTypeName(v)}`);
    }
  }
  return chosen;
}

const WRAPPER_KEYS = new Set(['sql', 'ucast', 'postgresql', 'mysql', 'sqlserver', 'sqlite', 'all', 'minimal', 'prisma', 'linq']);

/** How Go's %T names a decoded JSON value (the wording of OPA's mapping errors). */
function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float64';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Short unknown names made valid by `$table` entries, one level inside each wrapper. */
export function shortsFromMappings(mappings: TableMappings | null | undefined): Set<string> {
  const out = new Set<string>();
  if (!mappings) return out;
  for (const wrapper of Object.values(mappings)) {
    if (!isMap(wrapper)) continue;
    for (const [name, m] of Object.entries(wrapper)) if (isMap(m) && '$table' in m) out.add(name);
  }
  return out;
}

/** The tree as plain JSON-able JS (numbers as JS numbers, sets as sorted arrays). */
export function ucastToJS(node: UcastNode | undefined): unknown {
  if (node === undefined) return {};
  if (node.type === 'compound') return { type: 'compound', operator: node.operator, value: node.value.map(ucastToJS) };
  return { type: 'field', field: node.field, operator: node.operator, value: valueToJS(node.value) };
}

function valueToJS(v: Value | FieldRef): unknown {
  if (v instanceof FieldRef) return { field: v.field };
  return plain(v);
}

function plain(v: Value): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof RObject) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v.entries()) o[typeof k === 'string' ? k : JSON.stringify(plain(k))] = plain(x);
    return o;
  }
  if (v instanceof RSet) return v.values().map(plain);
  return Number(String(v)); // BigNum
}
