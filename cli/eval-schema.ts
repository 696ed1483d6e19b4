// `-s/--schema` for `regent eval` and `regent check`: JSON-schema type checking of
// `input` references, as OPA's type checker does with an input schema. Every ref
// rooted at `input` (in the modules and the query) is walked against the schema:
// a static key that an object schema does not declare (no `additionalProperties`)
// is OPA's error
//   file:row: rego_type_error: undefined ref: input.request.kind.kinds
//   	input.request.kind.kinds
//   	                   ^
//   	                   have: "kinds"
//   	                   want (one of): ["kind" "version"]
// and a key into a scalar (`input.user.name.first` where name is a string) has carets
// under `input.user.name` and `have: string` (OPA's RefErrUnsupportedDetail lines).
// Unifying (`=`) a ref of a scalar schema type with a literal of another scalar type
// is OPA's `rego_type_error: match error` with `left  : string` / `right : number`.
// The JSON form carries `details: {ref, pos, want, oneOf}` (terms as OPA JSON), or
// `{ref, pos, have}` for a key into a scalar.
// Schemas: a file is the input schema; `$ref` to `#/definitions/…` or `#/$defs/…`
// is followed; `anyOf`/`oneOf`/`allOf` merge their properties. A directory gives no
// global input schema: its files are named by `# METADATA` `schemas:` annotations
// (cli/eval-schema-set.ts), which can also type `data` refs.
import { readFileSync, statSync } from 'node:fs';
import type { Body, Module, Node, RefTerm, Term } from '../compiler/ast/nodes.js';
import { formatTerm } from '../compiler/ast/print.js';
import { walkTerms } from '../compiler/ast/walk.js';
import { RegoError } from '../compiler/source/diagnostics.js';
import { RefErrInvalidDetail, RefErrUnsupportedDetail, UnificationErrDetail } from '../compiler/source/ref-detail.js';
import { quote } from './output.js';

export type Schema = Record<string, unknown>;

/** The input schema of a `-s` path (file), or undefined for a directory. Throws on bad JSON. */
export function loadInputSchema(path: string): Schema | undefined {
  if (statSync(path).isDirectory()) return undefined;
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(text) as Schema;
  } catch (e) {
    throw new Error(`unable to parse schema ${path}: ${(e as Error).message}`);
  }
}

/** The scalar type of a literal term, or undefined. */
function literalType(t: Term): string | undefined {
  switch (t.kind) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return t.kind;
    default:
      return undefined;
  }
}

/** Follow a local `$ref`, and merge `allOf`/`anyOf`/`oneOf` alternatives. */
function resolve(root: Schema, s: Schema | undefined, depth = 0): Schema | undefined {
  if (!s || typeof s !== 'object' || depth > 32) return undefined;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    let x: unknown = root;
    for (const part of s.$ref.slice(2).split('/')) x = (x as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    return resolve(root, x as Schema, depth + 1);
  }
  const alts = [...((s.allOf as Schema[]) ?? []), ...((s.anyOf as Schema[]) ?? []), ...((s.oneOf as Schema[]) ?? [])];
  if (alts.length === 0) return s;
  const merged: Schema = { ...s, properties: { ...((s.properties as Schema) ?? {}) } };
  for (const a of alts.map((x) => resolve(root, x, depth + 1))) {
    if (!a) return undefined; // an alternative we cannot read: anything goes
    if (a.type && !merged.type) merged.type = a.type;
    if (a.type && merged.type !== a.type && !s.type) return undefined; // mixed types: no checking
    Object.assign(merged.properties as Schema, (a.properties as Schema) ?? {});
    if (a.additionalProperties !== undefined && a.additionalProperties !== false) merged.additionalProperties = a.additionalProperties;
    if (a.items && !merged.items) merged.items = a.items;
  }
  return merged;
}

const SCALARS: Record<string, string> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' };

/** The scalar type the schema gives a whole `input` ref, when it gives one. */
function leafType(root: Schema, t: RefTerm): string | undefined {
  let s = resolve(root, root);
  for (const key of t.path) {
    if (!s) return undefined;
    if (s.type === 'array' || (!s.type && s.items)) s = resolve(root, Array.isArray(s.items) ? undefined : (s.items as Schema));
    else if (key.kind === 'string' && s.properties && key.value in (s.properties as Schema)) s = resolve(root, (s.properties as Schema)[key.value] as Schema);
    else return undefined;
  }
  return s && typeof s.type === 'string' ? SCALARS[s.type] : undefined;
}

/**
 * The schema at a path below the root (`user`, `items[_]`), as a root of its own
 * (the root's definitions kept for `$ref`); undefined when the path leaves what the
 * schema declares.
 */
export function subSchema(root: Schema, path: Term[]): Schema | undefined {
  let s = resolve(root, root);
  for (const key of path) {
    if (!s) return undefined;
    if (s.type === 'array' || (!s.type && s.items)) s = key.kind === 'string' ? undefined : resolve(root, Array.isArray(s.items) ? undefined : (s.items as Schema));
    else if (key.kind === 'string' && s.properties && key.value in (s.properties as Schema)) s = resolve(root, (s.properties as Schema)[key.value] as Schema);
    else return undefined;
  }
  if (!s) return undefined;
  return { ...s, ...(root.definitions ? { definitions: root.definitions } : {}), ...(root.$defs ? { $defs: root.$defs } : {}) };
}

/** Check one ref against the schema of its first `from` path segments (0: `input`); returns its error or undefined. */
export function checkRef(root: Schema, t: RefTerm, from = 0): RegoError | undefined {
  let s = resolve(root, root);
  for (let i = from; i < t.path.length && s; i++) {
    const key = t.path[i]!;
    const type = typeof s.type === 'string' ? s.type : undefined;
    // A key into a scalar: OPA's checkRefLeaf finds no key type (RefErrUnsupportedDetail).
    if (type && SCALARS[type]) return new RegoError('rego_type_error', `undefined ref: ${formatTerm(t)}`, t.loc, new RefErrUnsupportedDetail(t, i, SCALARS[type]!));
    if (type === 'array' || (!type && s.items)) {
      const items = Array.isArray(s.items) ? undefined : (s.items as Schema | undefined);
      s = resolve(root, items);
      continue;
    }
    const props = s.properties as Schema | undefined;
    if (!props || key.kind !== 'string') return undefined; // dynamic key or open object: no more checking
    if (key.value in props) {
      s = resolve(root, props[key.value] as Schema);
      continue;
    }
    if (s.additionalProperties !== undefined && s.additionalProperties !== false) return undefined;
    if (s.patternProperties) return undefined;
    const keys = Object.keys(props).sort();
    return new RegoError('rego_type_error', `undefined ref: ${formatTerm(t)}`, t.loc, new RefErrInvalidDetail(t, i + 1, null, keys));
  }
  return undefined;
}

/** Every `input` ref of the modules (and query) checked against the input schema, in source order. */
export function checkInputSchema(schema: Schema, modules: Module[], query?: Body): RegoError[] {
  const errors: RegoError[] = [];
  for (const m of modules) checkInputRefs(schema, m, errors);
  if (query) checkInputRefs(schema, query, errors);
  return errors;
}

/** The `input` refs (and `input` = literal unifications) of one node checked against the input schema. */
export function checkInputRefs(schema: Schema, node: Node | Body, errors: RegoError[]): void {
  walkTerms(node, (t) => {
    if (t.kind === 'ref' && t.head.kind === 'var' && t.head.name === 'input') {
      const err = checkRef(schema, t);
      if (err) errors.push(err);
    }
    if (t.kind === 'call' && t.op.kind === 'var' && t.op.name === 'eq' && t.args.length === 2) {
      const [l, r] = t.args as [Term, Term];
      const lt = l.kind === 'ref' && l.head.kind === 'var' && l.head.name === 'input' ? leafType(schema, l) : literalType(l);
      const rt = r.kind === 'ref' && r.head.kind === 'var' && r.head.name === 'input' ? leafType(schema, r) : literalType(r);
      if (lt && rt && lt !== rt && (l.kind === 'ref' || r.kind === 'ref')) errors.push(new RegoError('rego_type_error', 'match error', t.loc, new UnificationErrDetail({ type: lt }, { type: rt }, lt, rt)));
    }
  });
}
