// JSON and YAML builtins (OPA's topdown/json.go and encoding.go): json.filter,
// json.remove, json.marshal(_with_options), json.unmarshal, json.is_valid and
// yaml.*. OPA converts YAML through sigs.k8s.io/yaml (go-yaml v2, YAML 1.1): loading
// uses YAML 1.1 scalars (yes/no are booleans) and merge keys, big integers stay
// exact; dumping sorts keys and does not indent sequences inside mappings.
// json.patch and the JSON-schema builtins live in json-patch.ts / json-schema.ts.
import { yaml } from '../value/yaml-lib.js';
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';
import { RSet } from '../value/collections.js';
import { compareStrings } from '../value/compare.js';
import { BigNum, formatNumber } from '../value/number.js';
import { formatTerm } from '../value/format.js';
import { fromJS, parseJSON, toJS } from '../value/json.js';
import { GO_MAX_NESTING_DEPTH, goEscapeHTML, goJSONDecode, goJSONValid, nestingDepth } from '../value/go-json.js';
import { YAMLLimitError, checkYAMLDocument } from '../value/yaml-limits.js';
import type { BuiltinDef, TypeSpec } from './types.js';
import { T } from './types.js';
import { BuiltinError, OperandTypeError } from './errors.js';
import { asObject, asString } from './args.js';
import { checkJSONWidth } from '../eval/limits.js';
import { filterValue, parsePaths, pathsToObject, removeValue } from './json-paths.js';
import { builtins as patchBuiltins } from './json-patch.js';
import { builtins as schemaBuiltins } from './json-schema.js';

/**
 * The common case of json.unmarshal, without the Go scanner's extra pass: a text
 * JSON.parse accepts whole is one value Go accepts too (same grammar and white
 * space), unless it nests deeper than Go allows. Undefined: take the exact path.
 */
function wholeJSONValue(s: string): Value | undefined {
  if (s.length > GO_MAX_NESTING_DEPTH && nestingDepth(s, GO_MAX_NESTING_DEPTH) > GO_MAX_NESTING_DEPTH) return undefined;
  try {
    return parseJSON(s);
  } catch {
    return undefined;
  }
}

/** A JSON string literal as Go's encoding/json writes it (HTML characters escaped). */
export function goQuote(s: string): string {
  return goEscapeHTML(JSON.stringify(s));
}

/** JSON text of an object key: strings as is, other keys as their compact JSON. */
function keyText(k: Value): string {
  return typeof k === 'string' ? k : goMarshal(k);
}

/**
 * Serialize like Go's json.Marshal / json.MarshalIndent over OPA's ast.JSON form:
 * sets become arrays, object keys are sorted bytewise, numbers keep their text.
 * With `indent` set, the output is indented (and `prefix` starts every new line).
 */
export function goMarshal(v: Value, indent?: string, prefix = ''): string {
  const pretty = indent !== undefined;
  // Pieces are joined every MARSHAL_FLUSH pushes: one array of all the pieces of a
  // large value (10 million references to a small array) would pass V8's 2^27
  // elements, which aborts the whole process instead of throwing.
  const chunks: string[] = [];
  let done = '';
  const parts = {
    push(s: string): void {
      chunks.push(s);
      if (chunks.length >= MARSHAL_FLUSH) {
        done += chunks.join('');
        chunks.length = 0;
      }
    },
  };
  const write = (x: Value, cur: string): void => {
    if (x === null) parts.push('null');
    else if (typeof x === 'boolean') parts.push(x ? 'true' : 'false');
    else if (typeof x === 'number' || x instanceof BigNum) parts.push(formatNumber(x));
    else if (typeof x === 'string') parts.push(goQuote(x));
    else if (Array.isArray(x) || x instanceof RSet) {
      const items = Array.isArray(x) ? x : x.values();
      if (items.length === 0) return void parts.push('[]');
      const inner = cur + (indent ?? '');
      parts.push('[');
      items.forEach((item, i) => {
        if (i > 0) parts.push(',');
        if (pretty) parts.push('\n' + prefix + inner);
        write(item, inner);
      });
      parts.push(pretty ? '\n' + prefix + cur + ']' : ']');
    } else {
      const entries = x.entries().map(([k, val]) => [keyText(k), val] as const);
      if (entries.length === 0) return void parts.push('{}');
      entries.sort((a, b) => compareStrings(a[0], b[0]));
      const inner = cur + (indent ?? '');
      parts.push('{');
      entries.forEach(([k, val], i) => {
        if (i > 0) parts.push(',');
        if (pretty) parts.push('\n' + prefix + inner);
        parts.push(goQuote(k) + (pretty ? ': ' : ':'));
        write(val, inner);
      });
      parts.push(pretty ? '\n' + prefix + cur + '}' : '}');
    }
  };
  write(v, '');
  return done + chunks.join('');
}

/** How many pieces goMarshal collects before joining them. */
const MARSHAL_FLUSH = 1 << 16;

function marshalWithOptions(x: Value, optsV: Value): string {
  const opts = asObject(optsV, 2);
  let indent = '\t';
  let prefix = '';
  let implicitPretty = false;
  let explicit: boolean | undefined;
  opts.keys().forEach((k, idx) => {
    const val = opts.get(k)!;
    if (typeof k !== 'string') {
      throw new OperandTypeError(
        `operand 2 failed to stringify key ${formatTerm(k)} at index ${idx}: operand ${idx} must be string but got ${typeName(k)}`,
      );
    }
    switch (k) {
      case 'prefix':
      case 'indent':
        if (typeof val !== 'string') {
          throw new OperandTypeError(`operand 2 key ${k} failed cast to string: operand ${idx} must be string but got ${typeName(val)}`);
        }
        if (k === 'prefix') prefix = val;
        else indent = val;
        implicitPretty = true;
        break;
      case 'pretty':
        if (typeof val !== 'boolean') throw new OperandTypeError(`operand 2 key ${k} failed cast to bool`);
        explicit = val;
        break;
      default:
        throw new OperandTypeError(`operand 2 object contained unknown key ${k}`);
    }
  });
  const pretty = explicit ?? implicitPretty;
  return pretty ? prefix + goMarshal(x, indent, prefix) : goMarshal(x);
}

let loadSchema: import('js-yaml').Schema | undefined;

/** YAML 1.1 scalars and merge keys, integers kept exact (as bigint) when a double would round them. */
function yaml11Schema(): import('js-yaml').Schema {
  if (loadSchema) return loadSchema;
  const { Schema, FAILSAFE_SCHEMA, nullYaml11Tag, boolYaml11Tag, intYaml11Tag, floatYaml11Tag, mergeTag } = yaml();
  const exactIntTag = {
    ...intYaml11Tag,
    resolve: (source: string, isExplicit: boolean, tagName: string) => {
      const r = (intYaml11Tag.resolve as (s: string, e: boolean, t: string) => unknown)(source, isExplicit, tagName);
      if (typeof r === 'number' && !Number.isSafeInteger(r) && /^[-+]?[0-9_]+$/.test(source)) {
        return BigInt(source.replace(/_/g, ''));
      }
      return r;
    },
  };
  return (loadSchema = new Schema([...FAILSAFE_SCHEMA.tags, nullYaml11Tag, boolYaml11Tag, exactIntTag as typeof intYaml11Tag, floatYaml11Tag, mergeTag]));
}

function yamlError(e: unknown): BuiltinError {
  const msg = e instanceof Error ? e.message.split('\n')[0]! : String(e);
  return new BuiltinError(`yaml: ${msg}`);
}

/** Reject values JSON cannot hold (go-yaml → JSON fails on them too). */
function checkJSONable(x: unknown): void {
  if (typeof x === 'number' && !Number.isFinite(x)) throw new BuiltinError(`json: unsupported value: ${x > 0 ? '+Inf' : x < 0 ? '-Inf' : 'NaN'}`);
  if (Array.isArray(x)) x.forEach(checkJSONable);
  else if (x !== null && typeof x === 'object' && !(x instanceof Uint8Array)) Object.values(x).forEach(checkJSONable);
}

export function yamlUnmarshal(text: string): Value {
  if (text.trim() === '' || /^(\s*#.*(\n|$))*\s*$/.test(text)) return null;
  let doc: unknown;
  try {
    doc = yaml().load(text, { schema: yaml11Schema(), maxDepth: 10000 });
    // go-yaml refuses alias bombs ("billion laughs") before expanding them.
    checkYAMLDocument(doc, Infinity);
  } catch (e) {
    if (e instanceof YAMLLimitError) throw new BuiltinError(e.message);
    throw yamlError(e);
  }
  checkJSONable(doc);
  return fromJS(doc);
}

export function yamlIsValid(text: string): boolean {
  try {
    yamlUnmarshal(text);
    return true;
  } catch {
    return false;
  }
}

export function yamlMarshal(v: Value): string {
  // Go marshals the value to JSON first: object keys become strings, sets arrays.
  return yaml().dump(toJS(v), { seqNoIndent: true, quoteStyle: 'double', lineWidth: -1, noRefs: true, sortKeys: true });
}

const pathsArg: TypeSpec = T.anyOf(
  T.arrayOf(T.anyOf(T.string, T.arrayOf(T.any))),
  T.setOf(T.anyOf(T.string, T.arrayOf(T.any))),
);
const anyObject: TypeSpec = T.objectOf(T.any, T.any);

const jsonBuiltins: BuiltinDef[] = [
  {
    decl: { name: 'json.filter', args: [anyObject, pathsArg], result: T.any, categories: ['object'] },
    impl: ([obj, paths]) => {
      const o = asObject(obj!, 1);
      return filterValue(o, pathsToObject(parsePaths(paths!)));
    },
  },
  {
    decl: { name: 'json.remove', args: [anyObject, pathsArg], result: T.any, categories: ['object'] },
    impl: ([obj, paths]) => {
      const o = asObject(obj!, 1);
      return removeValue(o, pathsToObject(parsePaths(paths!)));
    },
  },
  {
    decl: { name: 'json.marshal', args: [T.any], result: T.string, categories: ['encoding'] },
    impl: ([x]) => goMarshal(x!),
  },
  {
    decl: {
      name: 'json.marshal_with_options',
      args: [
        T.any,
        {
          type: 'object',
          static: [
            { key: 'indent', value: T.string },
            { key: 'prefix', value: T.string },
            { key: 'pretty', value: T.boolean },
          ],
          dynamic: { key: T.string, value: T.any },
        },
      ],
      result: T.string,
      categories: ['encoding'],
    },
    impl: ([x, opts]) => marshalWithOptions(x!, opts!),
  },
  {
    decl: { name: 'json.unmarshal', args: [T.string], result: T.any, categories: ['encoding'] },
    impl: ([x]) => {
      // OPA's util.UnmarshalJSON: the first value, then only a null or nothing may follow.
      const s = asString(x!, 1);
      checkJSONWidth(s);
      const fast = wholeJSONValue(s);
      if (fast !== undefined) return fast;
      const go = goJSONDecode(s, 'unmarshal');
      if (!go.ok) throw new BuiltinError(go.message);
      return parseJSON(s.slice(0, go.end));
    },
  },
  {
    decl: { name: 'json.is_valid', args: [T.string], result: T.boolean, categories: ['encoding'] },
    impl: ([x]) => typeof x === 'string' && goJSONValid(x),
  },
];

const yamlBuiltins: BuiltinDef[] = [
  {
    decl: { name: 'yaml.marshal', args: [T.any], result: T.string, categories: ['encoding'] },
    impl: ([x]) => yamlMarshal(x!),
  },
  {
    decl: { name: 'yaml.unmarshal', args: [T.string], result: T.any, categories: ['encoding'] },
    impl: ([x]) => yamlUnmarshal(asString(x!, 1)),
  },
  {
    decl: { name: 'yaml.is_valid', args: [T.string], result: T.boolean, categories: ['encoding'] },
    impl: ([x]) => typeof x === 'string' && yamlIsValid(x),
  },
];

export const builtins: BuiltinDef[] = [...jsonBuiltins, ...patchBuiltins, ...schemaBuiltins, ...yamlBuiltins];

