// JSON-schema builtins (OPA's topdown/jsonschema.go): json.verify_schema and
// json.match_schema, validated with ajv. Results and messages follow OPA's
// gojsonschema: verify gives [valid, error-or-null]; match gives [valid, errors]
// with error objects {error, type, field, desc} in gojsonschema's wording.
// ajv and ajv-formats load on the first schema (about 100 ms of start-up otherwise).
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Value } from '../value/value.js';
import { RObject } from '../value/collections.js';
import { toJS, type JSONValue } from '../value/json.js';
import type { BuiltinDef, TypeSpec } from './types.js';
import { T } from './types.js';
import { BuiltinError } from './errors.js';
import { goJSONValid } from '../value/go-json.js';

let ajvInstance: Ajv | undefined;

function validator(): Ajv {
  if (ajvInstance) return ajvInstance;
  const require = createRequire(import.meta.url);
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv');
  const addFormats = require('ajv-formats') as (ajv: Ajv) => Ajv;
  ajvInstance = new AjvClass({ allErrors: true, strict: false, logger: false, validateSchema: true });
  addFormats(ajvInstance);
  return ajvInstance;
}

const VALID_TYPES = ['array', 'boolean', 'integer', 'number', 'null', 'object', 'string'];
const cache = new Map<string, ValidateFunction>();

/** OPA's astValueToJSONSchemaLoader: a JSON string or an object/array value. */
function load(v: Value): JSONValue {
  if (typeof v === 'string') {
    if (!goJSONValid(v)) throw new BuiltinError('invalid JSON string');
    return JSON.parse(v) as JSONValue;
  }
  if (v instanceof RObject || Array.isArray(v)) return toJS(v);
  throw new BuiltinError('wrong type, expected string or object');
}

/** gojsonschema's own schema check for `type`, run before ajv for its exact wording. */
function checkTypes(s: unknown): void {
  if (Array.isArray(s)) return s.forEach(checkTypes);
  if (s === null || typeof s !== 'object') return;
  for (const [k, v] of Object.entries(s as Record<string, unknown>)) {
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') continue;
    if (k === 'type') {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        checkTypes(v); // a property named "type"
        continue;
      }
      const ts = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
      const seen = new Set<unknown>();
      for (const t of ts) {
        if (typeof t === 'string' && !VALID_TYPES.includes(t)) {
          throw new BuiltinError(`has a primitive type that is NOT VALID -- given: /${t}/ Expected valid values are:[${VALID_TYPES.join(' ')}]`);
        }
        if (seen.has(t)) throw new BuiltinError(`${String(t)} type is duplicated`);
        seen.add(t);
      }
      continue;
    }
    checkTypes(v);
  }
}

function compile(schemaV: Value): ValidateFunction {
  const schema = load(schemaV);
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  checkTypes(schema);
  // ajv knows draft-07 natively; older drafts' $schema URIs would be unknown refs.
  if (schema !== null && typeof schema === 'object' && !Array.isArray(schema) && typeof schema.$schema === 'string') {
    if (/json-schema\.org\/(draft-0[4-7]\/)?schema#?$/.test(schema.$schema)) {
      const { $schema: _, ...rest } = schema;
      return compileObject(rest, key);
    }
  }
  return compileObject(schema, key);
}

function compileObject(schema: JSONValue, key: string): ValidateFunction {
  let fn: ValidateFunction;
  try {
    fn = validator().compile(typeof schema === 'object' && schema !== null ? (schema as object) : {});
  } catch (e) {
    throw new BuiltinError(e instanceof Error ? e.message : String(e));
  }
  if (cache.size > 256) cache.clear();
  cache.set(key, fn);
  return fn;
}

/** gojsonschema's name for a JSON value's type (integral numbers are "integer"). */
function jsonType(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x;
}

const num = (n: unknown) => String(n);
const typeList = (t: unknown) => (Array.isArray(t) ? (t.length > 1 ? `[${t.join(',')}]` : String(t[0])) : String(t));

/** Resolve an ajv instance path against the document. */
function valueAt(doc: unknown, segs: string[]): unknown {
  let cur = doc;
  for (const s of segs) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[s] : undefined;
  return cur;
}

/** Map one ajv error to gojsonschema's [type, description]; undefined to drop it. */
function describe(e: ErrorObject, doc: unknown, segs: string[], field: string): [string, string] | undefined {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return ['required', `${String(p.missingProperty)} is required`];
    case 'type':
      return ['invalid_type', `Invalid type. Expected: ${typeList(p.type)}, given: ${jsonType(valueAt(doc, segs))}`];
    case 'enum':
      return ['enum', `${field} must be one of the following: ${(p.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`];
    case 'const':
      return ['const', `${field} does not match: ${JSON.stringify(p.allowedValue)}`];
    case 'additionalProperties':
      return ['additional_property_not_allowed', `Additional property ${String(p.additionalProperty)} is not allowed`];
    case 'minLength':
      return ['string_gte', `String length must be greater than or equal to ${num(p.limit)}`];
    case 'maxLength':
      return ['string_lte', `String length must be less than or equal to ${num(p.limit)}`];
    case 'minimum':
      return ['number_gte', `Must be greater than or equal to ${num(p.limit)}`];
    case 'exclusiveMinimum':
      return ['number_gt', `Must be greater than ${num(p.limit)}`];
    case 'maximum':
      return ['number_lte', `Must be less than or equal to ${num(p.limit)}`];
    case 'exclusiveMaximum':
      return ['number_lt', `Must be less than ${num(p.limit)}`];
    case 'multipleOf':
      return ['multiple_of', `Must be a multiple of ${num(p.multipleOf)}`];
    case 'minItems':
      return ['array_min_items', `Array must have at least ${num(p.limit)} items`];
    case 'maxItems':
      return ['array_max_items', `Array must have at most ${num(p.limit)} items`];
    case 'uniqueItems':
      return ['unique', 'array items must be unique'];
    case 'minProperties':
      return ['array_min_properties', `Must have at least ${num(p.limit)} properties`];
    case 'maxProperties':
      return ['array_max_properties', `Must have at most ${num(p.limit)} properties`];
    case 'pattern':
      return ['pattern', `Does not match pattern '${String(p.pattern)}'`];
    case 'format':
      return ['format', `Does not match format '${String(p.format)}'`];
    case 'anyOf':
      return ['number_any_of', 'Must validate at least one schema (anyOf)'];
    case 'oneOf':
      return ['number_one_of', 'Must validate one and only one schema (oneOf)'];
    case 'not':
      return ['number_not', 'Must not validate the schema (not)'];
    case 'dependencies':
    case 'dependentRequired':
      return ['missing_dependency', `Has a dependency on ${String(p.missingProperty)}`];
    case 'if':
      return p.failingKeyword === 'else'
        ? ['condition_else', 'Must validate "else" as "if" was not valid']
        : ['condition_then', 'Must validate "then" as "if" was valid'];
    case 'contains':
      return ['contains', 'At least one of the items must match'];
    case 'additionalItems':
    case 'items':
      return ['array_no_additional_items', 'No additional items allowed on array'];
    case 'propertyNames':
      return ['invalid_property_name', `Property name of "${String(p.propertyName)}" does not match`];
    case 'false schema':
      return ['false', 'False always fails validation'];
    default:
      return [e.keyword, e.message ?? e.keyword];
  }
}

function matchErrors(errors: ErrorObject[], doc: unknown): Value[] {
  const out: Value[] = [];
  for (const e of errors) {
    const segs = e.instancePath === '' ? [] : e.instancePath.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
    const field = segs.length === 0 ? '(root)' : segs.join('.');
    const d = describe(e, doc, segs, field);
    if (d === undefined) continue;
    out.push(
      RObject.fromEntries([
        ['error', `${field}: ${d[1]}`],
        ['type', d[0]],
        ['field', field],
        ['desc', d[1]],
      ]),
    );
  }
  return out;
}

const docArg: TypeSpec = T.anyOf(T.string, T.objectOf(T.any, T.any));

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'json.verify_schema',
      args: [docArg],
      result: T.tuple(T.boolean, T.anyOf(T.string, T.null)),
      categories: ['object'],
    },
    impl: ([schema]) => {
      try {
        compile(schema!);
        return [true, null];
      } catch (e) {
        if (!(e instanceof BuiltinError)) throw e;
        return [false, `jsonschema: ${e.message}`];
      }
    },
  },
  {
    decl: {
      name: 'json.match_schema',
      args: [docArg, docArg],
      result: T.tuple(
        T.boolean,
        T.arrayOf({
          type: 'object',
          static: [
            { key: 'desc', value: T.string },
            { key: 'error', value: T.string },
            { key: 'field', value: T.string },
            { key: 'type', value: T.string },
          ],
        }),
      ),
      categories: ['object'],
    },
    impl: ([docV, schemaV]) => {
      const doc = load(docV!);
      const validate = compile(schemaV!);
      const ok = validate(doc);
      return [ok, ok ? [] : matchErrors(validate.errors ?? [], doc)];
    },
  },
];
