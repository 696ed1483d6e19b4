// UCAST trees → SQL WHERE clauses, one renderer per dialect (postgresql, mysql,
// sqlserver, sqlite), following what OPA's translator produces through
// huandu/go-sqlbuilder v1.38.1 (the version OPA and EOPA pin):
//   eq `f = v`, `f IS NULL`; ne `f <> v`, `f IS NOT NULL`; lt/lte/gt/gte
//   (`ge`/`le` accepted too); in `f IN (a, b)`, empty `0 = 1`; startswith,
//   endswith, contains `f LIKE 'p%'` with `\`, `_` and `%` backslash-escaped;
//   a second column is written raw; and `(a AND b)`, or `(a OR b)`, not `NOT a`.
// Values are written into the text, never as placeholders: strings quoted per
// dialect (postgresql `E'…'`, mysql `'…'`, sqlserver `N'…'`, sqlite `'…'`),
// booleans TRUE/FALSE, and numbers from Rego as quoted strings (`E'2'`), as OPA
// renders its json.Number values; `quoteNumbers: false` writes bare numbers (the
// library's behaviour for Go ints, used by OPA's own renderer tests).
//
// Identifiers are written raw when they are plain names (every name OPA's tests
// use); any other part of a `table.column` is quoted per dialect.
// Escaping is the only place user text enters SQL. postgresql (E-strings) and
// mysql use v1.38.1's backslash escapes (NUL \0, \b, \n, \r, \t, 0x1A \Z, ' \',
// " \", \ \\), which both servers read back exactly. sqlite and sqlserver do not
// understand backslash escapes: v1.38.1's text for a value containing `'` ends the
// literal early there (an injection). For them this renderer uses the rules of the
// later library versions instead (v1.38.2 for sqlite, v1.43.0 for sqlserver):
// `'` doubled, other characters kept, and for sqlite NUL as `'||char(0)||'`. The
// output differs from OPA's only for strings containing those characters. A
// sqlserver LIKE pattern that needed escaping gets `ESCAPE '\'` (SQL Server has
// no default escape character) and `[` escaped too.
import { BigNum, RObject, RSet, type Value } from '../../runtime/value/value.js';
import { toJSONText } from '../../runtime/value/json.js';
import { FilterError, type SqlDialect } from './constraints.js';
import { FieldRef, type UcastNode } from './ucast.js';

export interface SqlOptions {
  /** Numbers as quoted strings, as OPA's API renders them (default true). */
  quoteNumbers?: boolean;
}

/** `WHERE …` for a tree; the empty string for unconditional YES (undefined tree). */
export function ucastToSql(node: UcastNode | undefined, dialect: SqlDialect, opts: SqlOptions = {}): string {
  if (node === undefined) return '';
  const r = RENDERERS[dialect];
  if (!r) throw new FilterError(`unsupported variant for sql: ${dialect}`);
  return `WHERE ${condition(node, r, opts.quoteNumbers ?? true)}`;
}

interface Renderer {
  dialect: SqlDialect;
  /** A quoted identifier part (only used for parts that are not plain names). */
  quoteIdent(part: string): string;
  /** A string literal. */
  string(s: string): string;
  /** LIKE with a pattern made of literal parts around `%` wildcards. */
  like(field: string, prefix: string, text: string, suffix: string): string;
}

/** go-sqlbuilder v1.38.1's backslash escaping (valid in postgresql E-strings and mysql). */
function backslashEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    switch (ch) {
      case '\0': out += '\\0'; break;
      case '\b': out += '\\b'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\x1a': out += '\\Z'; break;
      case "'": out += "\\'"; break;
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      default: out += ch;
    }
  }
  return out;
}

/** OPA's LIKE escaping of a pattern's literal text: `\`, `_`, `%` get a backslash. */
function likeEscape(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/_/g, '\\_').replace(/%/g, '\\%');
}

const backslashLike = (quote: (s: string) => string) => (field: string, prefix: string, text: string, suffix: string) =>
  `${field} LIKE ${quote(prefix + likeEscape(text) + suffix)}`;

const doubleQuoted = (p: string) => `"${p.replace(/"/g, '""')}"`;

const postgres: Renderer = {
  dialect: 'postgresql',
  quoteIdent: doubleQuoted,
  string: (s) => `E'${backslashEscape(s)}'`,
  like: backslashLike((s) => `E'${backslashEscape(s)}'`),
};

const mysql: Renderer = {
  dialect: 'mysql',
  quoteIdent: (p) => `\`${p.replace(/`/g, '``')}\``,
  string: (s) => `'${backslashEscape(s)}'`,
  like: backslashLike((s) => `'${backslashEscape(s)}'`),
};

const sqlserverString = (s: string) => `N'${s.replace(/'/g, "''")}'`;
const sqlserver: Renderer = {
  dialect: 'sqlserver',
  quoteIdent: (p) => `[${p.replace(/]/g, ']]')}]`,
  string: sqlserverString,
  like: (field, prefix, text, suffix) => {
    const escaped = text.replace(/[\\_%[]/g, (c) => `\\${c}`);
    const clause = escaped === text ? '' : ` ESCAPE '\\'`;
    return `${field} LIKE ${sqlserverString(prefix + escaped + suffix)}${clause}`;
  },
};

const sqliteString = (s: string) => `'${s.replace(/'/g, "''").replace(/\0/g, "'||char(0)||'")}'`;
const sqlite: Renderer = {
  dialect: 'sqlite',
  quoteIdent: doubleQuoted,
  string: sqliteString,
  like: (field, prefix, text, suffix) => {
    const escaped = likeEscape(text);
    const clause = escaped === text ? '' : ` ESCAPE '\\'`;
    return `${field} LIKE ${sqliteString(prefix + escaped + suffix)}${clause}`;
  },
};

const RENDERERS: Record<SqlDialect, Renderer> = { postgresql: postgres, mysql, sqlserver, sqlite };

const COMPARE: Record<string, string> = { eq: '=', ne: '<>', lt: '<', lte: '<=', le: '<=', gt: '>', gte: '>=', ge: '>=' };
const LIKE: Record<string, [string, string]> = { startswith: ['', '%'], endswith: ['%', ''], contains: ['%', '%'] };

function condition(node: UcastNode, r: Renderer, quoteNumbers: boolean): string {
  if (node.type === 'compound') {
    const parts = node.value.map((n) => condition(n, r, quoteNumbers));
    switch (node.operator) {
      case 'and':
        return `(${parts.join(' AND ')})`;
      case 'or':
        return `(${parts.join(' OR ')})`;
      case 'not':
        if (parts.length !== 1) throw new FilterError("compound expression 'not' requires exactly one value");
        return `NOT ${parts[0]}`;
    }
  }
  const { operator, value } = node;
  const field = identifier(node.field, r);
  if (value === null) {
    if (operator === 'eq') return `${field} IS NULL`;
    if (operator === 'ne') return `${field} IS NOT NULL`;
    throw new FilterError("null value can only be used with 'eq' or 'ne' operators");
  }
  const cmp = COMPARE[operator];
  if (cmp !== undefined) return `${field} ${cmp} ${literal(value, r, quoteNumbers)}`;
  if (operator === 'in') {
    if (!Array.isArray(value) && !(value instanceof RSet)) throw new FilterError("field operator 'in' requires collection argument");
    const items = Array.isArray(value) ? value : value.values();
    if (items.length === 0) return '0 = 1';
    return `${field} IN (${items.map((v) => literal(v, r, quoteNumbers)).join(', ')})`;
  }
  const like = LIKE[operator];
  if (like !== undefined) {
    if (typeof value !== 'string') throw new FilterError(`'${operator}' pattern requires string argument, got ${literalText(value)}`);
    return r.like(field, like[0], value, like[1]);
  }
  throw new FilterError(`unrecognized operator: ${operator}`);
}

function literalText(v: Value | FieldRef): string {
  return v instanceof FieldRef ? v.field : toJSONText(v);
}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/**
 * A column as SQL text: `table.column` parts written as they are when they are
 * plain names (OPA writes identifiers raw), quoted per dialect otherwise, so a
 * name coming from input or mappings (`input.t[input.col]`, `$self`) cannot
 * inject SQL.
 */
function identifier(field: string, r: Renderer): string {
  if (field.split('.').every((p) => PLAIN_NAME.test(p))) return field;
  return field.split('.').map((p) => (PLAIN_NAME.test(p) ? p : r.quoteIdent(p))).join('.');
}

function literal(v: Value | FieldRef, r: Renderer, quoteNumbers: boolean): string {
  if (v instanceof FieldRef) return identifier(v.field, r);
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'string') return r.string(v);
  if (typeof v === 'number' || v instanceof BigNum) {
    const text = toJSONText(v);
    return quoteNumbers ? r.string(text) : text;
  }
  if (Array.isArray(v) || v instanceof RSet || v instanceof RObject) {
    throw new FilterError(`unsupported value in SQL comparison: ${toJSONText(v)}`);
  }
  throw new FilterError('unsupported value in SQL comparison');
}
