// Unit tests for the json.* and yaml.* builtins (json.ts, json-*.ts), transcribed
// from OPA's jsonfilter, jsonremove*, jsonpatch (the whole json-patch-tests suite is
// loaded from the conformance YAML), jsonbuiltins and jsonschema folders.
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/json.js';
import { BuiltinError } from '../../../runtime/builtins/errors.js';
import { BigNum, RObject, RSet, equal, fromJS, parseJSON, toJSONText, type Value } from '../../../runtime/value/index.js';
import { variadicCallerFor, builtinErrors } from './helpers.js';

const call = variadicCallerFor(builtins);
const json = (name: string, ...args: Value[]): string => toJSONText(call(name, ...args)!);
const err = builtinErrors(call);
const j = (s: string): Value => parseJSON(s);
const S = (...xs: Value[]): RSet => RSet.of(xs);

describe('json.filter (jsonfilter)', () => {
  it('filters by paths', () => {
    expect(json('json.filter', j('{}'), S('a/b'))).toBe('{}');
    expect(json('json.filter', j('{"a": [{"b": 7, "c": 8}, {"d": 9}]}'), S('a/0/b', 'a/1'))).toBe('{"a":[{"b":7},{"d":9}]}');
    expect(json('json.filter', j('{"a": {"b": {"c": 7, "d": 8, "x": 0}}, "e": 9}'), S('a/b/d', ['a', 'b', 'c']))).toBe('{"a":{"b":{"c":7,"d":8}}}');
    expect(json('json.filter', j('{"a": {"b": 1}, "c": 2}'), ['a', 'a/b'])).toBe('{"a":{"b":1}}');
    expect(json('json.filter', j('{"a/b": 1, "a": {"b": 2}}'), ['a~1b'])).toBe('{"a/b":1}');
    expect(json('json.filter', RObject.fromEntries([['s', S('x', 'y')]]), ['s/x'])).toBe('{"s":["x"]}');
  });
  it('type errors', () => {
    expect(err('json.filter', [1], ['a'])).toBe('eval_type_error: json.filter: operand 1 must be object but got array');
    expect(err('json.filter', j('{}'), 'a')).toBe('eval_type_error: json.filter: operand 2 must be one of {set, array} but got string');
  });
});

describe('json.remove (jsonremove)', () => {
  const rm = (o: string, paths: Value) => json('json.remove', j(o), paths);
  it('removes paths', () => {
    expect(rm('{"a": {"b": {"c": 7, "d": 8}}, "e": 9}', S('a/b/c'))).toBe('{"a":{"b":{"d":8}},"e":9}');
    expect(rm('{"a": {"b": {"c": 7, "d": 8}}, "e": 9}', S('a/b/c', 'e'))).toBe('{"a":{"b":{"d":8}}}');
    expect(rm('{"a": {"b": {"c": 7, "d": 8}, "e": 9}}', S('a/b/c', 'a/e'))).toBe('{"a":{"b":{"d":8}}}');
    expect(rm('{"a": {"b": 7}, "c": 1}', S('a', 'a/b'))).toBe('{"c":1}');
    expect(rm('{"a": 7}', S())).toBe('{"a":7}');
    expect(rm('{"a": {"b": 7}, "c": 1}', S('a', 'c'))).toBe('{}');
    expect(rm('{"a": [{"b": 7, "c": 8}, {"d": 9}]}', S('a/0/b', 'a/1'))).toBe('{"a":[{"c":8}]}');
    expect(rm('{"a": {"b": {"c": 7, "d": 8}}, "e": 9}', S(['a', 'b', 'c'], ['e']))).toBe('{"a":{"b":{"d":8}}}');
    expect(rm('{"a": {"b": {"c": 7, "d": 8, "x": 0}}, "e": 9}', S('a/b/d', ['a', 'b', 'c']))).toBe('{"a":{"b":{"x":0}},"e":9}');
    expect(rm('{"a": 1}', ['/a'])).toBe('{}');
  });
  it('is idempotent (jsonremoveidempotent)', () => {
    const o = j('{"a": {"b": 1, "c": 2}}');
    expect(json('json.remove', o, S('a'))).toBe('{}');
    expect(json('json.remove', o, S('a/b'))).toBe('{"a":{"c":2}}');
    expect(json('json.remove', o, S('a/c'))).toBe('{"a":{"b":1}}');
    expect(toJSONText(o)).toBe('{"a":{"b":1,"c":2}}');
  });
  it('type errors', () => {
    expect(err('json.remove', 'foo', S('a/b/c'))).toBe('eval_type_error: json.remove: operand 1 must be object but got string');
    expect(err('json.remove', 22, S('a/b/c'))).toBe('eval_type_error: json.remove: operand 1 must be object but got number');
    expect(err('json.remove', ['a'], S('a/b/c'))).toBe('eval_type_error: json.remove: operand 1 must be object but got array');
    expect(err('json.remove', j('{"a": {"b": {"c": 123}}}'), 22)).toBe('eval_type_error: json.remove: operand 2 must be one of {set, array} but got number');
    const msg = 'eval_type_error: json.remove: operand 2 must be one of {set, array} containing string paths or array of path segments but got object';
    expect(err('json.remove', j('{"a": 1}'), S('a', j('{"x": 1}'), j('{"y": 2}')))).toBe(msg);
    expect(err('json.remove', j('{"a": 1}'), ['a', j('{"x": 1}')])).toBe(msg);
  });
});

describe('json.patch', () => {
  const patch = (doc: string, ops: string) => call('json.patch', j(doc), j(ops));
  it('applies RFC 6902 operations', () => {
    expect(toJSONText(patch('{"a": {"foo": 1}}', '[{"op": "add", "path": "/a/bar", "value": 2}]')!)).toBe('{"a":{"bar":2,"foo":1}}');
    expect(toJSONText(patch('[1, 2]', '[{"op": "add", "path": "/-", "value": 3}]')!)).toBe('[1,2,3]');
    expect(toJSONText(patch('{"a": 1}', '[{"op": "move", "from": "/a", "path": "/b"}]')!)).toBe('{"b":1}');
    expect(toJSONText(patch('{"a": [1]}', '[{"op": "copy", "from": "/a/0", "path": "/b"}]')!)).toBe('{"a":[1],"b":1}');
    expect(toJSONText(patch('{"a": 1}', '[{"op": "replace", "path": "", "value": 5}]')!)).toBe('5');
    expect(toJSONText(patch('{"a": 1}', '[{"op": "add", "path": ["a"], "value": 5}]')!)).toBe('{"a":5}');
    expect(patch('{"a": 1}', '[{"op": "test", "path": "/a", "value": 2}]')).toBeUndefined();
    expect(patch('[1, 2, 3]', '[{"op": "add", "path": "1.2", "value": "foo"}]')).toBeUndefined();
    expect(patch('[1, 2]', '[{"op": "add", "path": "/01", "value": 3}]')).toBeUndefined();
  });
  it('works on sets', () => {
    const doc = RObject.fromEntries([['s', S(1, 2)]]);
    const add = j('[{"op": "add", "path": ["s", 3], "value": 3}]');
    expect(toJSONText(call('json.patch', doc, add)!)).toBe('{"s":[1,2,3]}');
    expect(call('json.patch', doc, j('[{"op": "add", "path": ["s", 3], "value": 4}]'))).toBeUndefined();
    expect(toJSONText(call('json.patch', doc, j('[{"op": "remove", "path": ["s", 1]}]'))!)).toBe('{"s":[2]}');
    expect(call('json.patch', doc, j('[{"op": "remove", "path": ["s", 7]}]'))).toBeUndefined();
  });
  it('errors', () => {
    expect(err('json.patch', j('{}'), j('{}'))).toBe('eval_type_error: json.patch: operand 2 must be array but got object');
    expect(err('json.patch', j('{}'), [1])).toBe('eval_type_error: json.patch: operand 2 must be an array of JSON-Patch objects');
    expect(err('json.patch', j('{}'), j('[{"path": "/a"}]'))).toBe("eval_type_error: json.patch: operand 2 patch is missing 'op' attribute");
    expect(err('json.patch', j('{}'), j('[{"op": 1, "path": "/a"}]'))).toBe("eval_type_error: json.patch: operand 2 patch attribute 'op' must be a string");
    expect(err('json.patch', j('{}'), j('[{"op": "add", "path": "/a"}]'))).toBe("eval_type_error: json.patch: operand 2 patch is missing 'value' attribute");
    expect(err('json.patch', j('{}'), j('[{"op": "nope", "path": "/a"}]'))).toBe('eval_type_error: json.patch: operand 2 must be an array of JSON-Patch objects');
    expect(err('json.patch', j('{}'), j('[{"op": "add", "path": 1, "value": 1}]'))).toBe(
      'eval_type_error: json.patch: operand 2 must be one of {set, array} containing string paths or array of path segments but got number',
    );
  });

  // The json-patch-tests suite from the jsonpatch conformance folder, run with the
  // same pass rules as its Rego driver module (errors count as "no result").
  it('passes the json-patch-tests suite (jsonpatch)', () => {
    const file = '/work/shared/opa-conformance/v1/jsonpatch/json-patch-tests.yaml';
    const yaml = load(readFileSync(file, 'utf8')) as { cases: { modules: string[] }[] };
    let n = 0;
    for (const mod of yaml.cases[0]!.modules) {
      const at = mod.indexOf('cases := ');
      if (at < 0) continue;
      const text = mod.slice(at + 'cases := '.length).replace(/,(\s*[}\]])/g, '$1');
      for (const t of JSON.parse(text) as Record<string, unknown>[]) {
        if (t.opa_disabled === true) continue;
        n++;
        let got: Value | undefined;
        try {
          got = call('json.patch', fromJS(t.doc), fromJS(t.patch));
        } catch (e) {
          if (!(e instanceof BuiltinError)) throw e;
        }
        const label = String(t.comment ?? JSON.stringify(t.patch));
        if (t.expected !== undefined && t.expected !== false) {
          expect(got !== undefined && equal(got, fromJS(t.expected)), label).toBe(true);
        } else if (t.error !== undefined) {
          expect(got, label).toBeUndefined();
        } else {
          expect(got, label).not.toBeUndefined();
        }
      }
    }
    expect(n).toBeGreaterThan(80);
  });
});

describe('json.marshal', () => {
  it('serializes like Go (jsonbuiltins/marshal)', () => {
    expect(call('json.marshal', [RObject.fromEntries([['foo', S(1, 2, 3)]])])).toBe('[{"foo":[1,2,3]}]');
    expect(call('json.marshal', j('{"b": 1, "a": [true, null, 1.5]}'))).toBe('{"a":[true,null,1.5],"b":1}');
    expect(call('json.marshal', '<a href="x">&</a>')).toBe('"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e"');
    expect(call('json.marshal', 'ü🎉\n\u2028')).toBe('"ü🎉\\n\\u2028"');
    expect(call('json.marshal', RObject.fromEntries([[1, 'a'], [[1, 2], 'b']]))).toBe('{"1":"a","[1,2]":"b"}');
    expect(call('json.marshal', j('123456789012345678901234567890'))).toBe('123456789012345678901234567890');
    expect(call('json.marshal', j('{}'))).toBe('{}');
    expect(call('json.marshal', S())).toBe('[]');
  });
  it('with options', () => {
    const v = j('{"a": [1, 2], "b": {}}');
    expect(call('json.marshal_with_options', v, j('{}'))).toBe('{"a":[1,2],"b":{}}');
    expect(call('json.marshal_with_options', v, j('{"pretty": true}'))).toBe('{\n\t"a": [\n\t\t1,\n\t\t2\n\t],\n\t"b": {}\n}');
    expect(call('json.marshal_with_options', v, j('{"indent": "  ", "prefix": "P"}'))).toBe(
      'P{\nP  "a": [\nP    1,\nP    2\nP  ],\nP  "b": {}\nP}',
    );
    expect(call('json.marshal_with_options', v, j('{"indent": "  ", "pretty": false}'))).toBe('{"a":[1,2],"b":{}}');
    expect(err('json.marshal_with_options', v, j('{"foo": 1}'))).toBe('eval_type_error: json.marshal_with_options: operand 2 object contained unknown key foo');
    expect(err('json.marshal_with_options', v, j('{"pretty": 1}'))).toBe('eval_type_error: json.marshal_with_options: operand 2 key pretty failed cast to bool');
    expect(err('json.marshal_with_options', v, 1)).toBe('eval_type_error: json.marshal_with_options: operand 2 must be object but got number');
  });
});

describe('json.unmarshal and json.is_valid', () => {
  it('parses exactly', () => {
    const v = call('json.unmarshal', '{"a": 12345678901234567890123, "b": [1.5, "ü"]}') as RObject;
    expect(v.get('a')).toBeInstanceOf(BigNum);
    expect(toJSONText(v)).toBe('{"a":12345678901234567890123,"b":[1.5,"ü"]}');
    expect(call('json.unmarshal', ' null ')).toBe(null);
    expect(call('json.unmarshal', '"\\u00fc"')).toBe('ü');
    expect(call('json.unmarshal', '{"a": 1} null')).toBeTruthy();
  });
  it("reports Go's errors", () => {
    const e = (s: string) => err('json.unmarshal', s);
    expect(e('')).toBe('eval_builtin_error: json.unmarshal: EOF');
    expect(e('{"a"')).toBe('eval_builtin_error: json.unmarshal: unexpected EOF');
    expect(e('plainstring')).toBe("eval_builtin_error: json.unmarshal: invalid character 'p' looking for beginning of value");
    expect(e('[1,]')).toBe("eval_builtin_error: json.unmarshal: invalid character ']' looking for beginning of value");
    expect(e('{"a" 1}')).toBe("eval_builtin_error: json.unmarshal: invalid character '1' after object key");
    expect(e('{"a": 1 "b"}')).toBe("eval_builtin_error: json.unmarshal: invalid character '\"' after object key:value pair");
    expect(e('[1 2]')).toBe("eval_builtin_error: json.unmarshal: invalid character '2' after array element");
    expect(e('{1: 2}')).toBe("eval_builtin_error: json.unmarshal: invalid character '1' looking for beginning of object key string");
    expect(e('tru')).toBe('eval_builtin_error: json.unmarshal: unexpected EOF');
    expect(e('trux')).toBe("eval_builtin_error: json.unmarshal: invalid character 'x' in literal true (expecting 'e')");
    // util.UnmarshalJSON decodes "1", then decoder.Token() decodes what follows.
    expect(e('1x')).toBe("eval_builtin_error: json.unmarshal: invalid character 'x' looking for beginning of value");
    expect(e('1 2')).toBe("eval_builtin_error: json.unmarshal: error: invalid character '2' after top-level value");
    expect(e('{} x')).toBe("eval_builtin_error: json.unmarshal: invalid character 'x' looking for beginning of value");
    expect(e('-')).toBe('eval_builtin_error: json.unmarshal: unexpected EOF');
    expect(e('01')).toBe("eval_builtin_error: json.unmarshal: error: invalid character '1' after top-level value");
    expect(e('{} ]')).toBe("eval_builtin_error: json.unmarshal: invalid character ']' looking for beginning of value");
    expect(e('é')).toBe("eval_builtin_error: json.unmarshal: invalid character 'Ã' looking for beginning of value");
    expect(err('json.unmarshal', 1)).toBe('eval_type_error: json.unmarshal: operand 1 must be string but got number');
  });
  it('is_valid (jsonbuiltins)', () => {
    expect(['plainstring', '{', '{"json": "ok"}'].map((d) => call('json.is_valid', d))).toEqual([false, false, true]);
    expect(call('json.is_valid', 1)).toBe(false);
    expect(call('json.is_valid', '')).toBe(false);
    expect(call('json.is_valid', ' [1, {"a": [null]}] ')).toBe(true);
    expect(call('json.is_valid', '[1] [2]')).toBe(false);
    expect(call('json.is_valid', '"\u0001"')).toBe(false);
    expect(call('json.is_valid', '['.repeat(20000) + ']'.repeat(20000))).toBe(false);
    expect(call('json.is_valid', '['.repeat(5000) + ']'.repeat(5000))).toBe(true);
  });
});

describe('yaml', () => {
  it('round-trips (jsonbuiltins/yaml round-trip)', () => {
    const v = [RObject.fromEntries([['foo', S(1, 2, 3)]])];
    const y = call('yaml.marshal', v) as string;
    expect(y).toBe('- foo:\n  - 1\n  - 2\n  - 3\n');
    expect(toJSONText(call('yaml.unmarshal', y)!)).toBe('[{"foo":[1,2,3]}]');
  });
  it('marshal quotes ambiguous strings', () => {
    expect(call('yaml.marshal', j('{"a": "true", "b": "", "c": "x"}'))).toBe('a: "true"\nb: ""\nc: x\n');
    expect(call('yaml.marshal', null)).toBe('null\n');
  });
  it('unmarshal uses YAML 1.1 scalars and keeps big integers', () => {
    const v = call('yaml.unmarshal', 'a: yes\nb: 12345678901234567890\nc: [1, 2.5]\nd: ü\n') as RObject;
    expect(v.get('a')).toBe(true);
    expect(v.get('b')).toBeInstanceOf(BigNum);
    expect(toJSONText(v)).toBe('{"a":true,"b":12345678901234567890,"c":[1,2.5],"d":"ü"}');
    expect(call('yaml.unmarshal', '')).toBe(null);
    expect(call('yaml.unmarshal', '# only a comment\n')).toBe(null);
  });
  it('errors and is_valid (jsonbuiltins/yaml is_valid)', () => {
    expect(err('yaml.unmarshal', 'foo:\n - qux: bar\n - baz: {')).toMatch(/^eval_builtin_error: yaml.unmarshal: yaml: /);
    expect(err('yaml.unmarshal', 'a: .inf')).toBe('eval_builtin_error: yaml.unmarshal: json: unsupported value: +Inf');
    const docs = ['foo:\n  - qux: bar\n  - baz: 2', 'foo:\n  - qux: bar\n  - baz: {', '{"json": "ok"}'];
    expect(docs.map((d) => call('yaml.is_valid', d))).toEqual([true, false, true]);
    expect(call('yaml.is_valid', 1)).toBe(false);
  });
});

describe('json schema (jsonschema)', () => {
  const schema = j('{"properties": {"id": {"type": "integer"}}, "required": ["id"]}');
  it('match_schema', () => {
    expect(json('json.match_schema', j('{"id": 5}'), schema)).toBe('[true,[]]');
    expect(json('json.match_schema', '{"id": 5}', schema)).toBe('[true,[]]');
    expect(json('json.match_schema', j('{"id": 5}'), '{"properties": {"id": {"type": "integer"}}, "required": ["id"]}')).toBe('[true,[]]');
    expect(json('json.match_schema', j('{"id": "foo"}'), schema)).toBe(
      '[false,[{"desc":"Invalid type. Expected: integer, given: string","error":"id: Invalid type. Expected: integer, given: string","field":"id","type":"invalid_type"}]]',
    );
    expect(json('json.match_schema', j('{}'), schema)).toBe(
      '[false,[{"desc":"id is required","error":"(root): id is required","field":"(root)","type":"required"}]]',
    );
    const strict = j('{"additionalProperties": false, "properties": {"a": {"enum": ["x", 1]}}}');
    expect(json('json.match_schema', j('{"a": "y", "b": 1}'), strict)).toBe(
      '[false,[{"desc":"Additional property b is not allowed","error":"(root): Additional property b is not allowed","field":"(root)","type":"additional_property_not_allowed"},' +
        '{"desc":"a must be one of the following: \\"x\\", 1","error":"a: a must be one of the following: \\"x\\", 1","field":"a","type":"enum"}]]',
    );
  });
  it('invalid schemas and documents', () => {
    expect(err('json.match_schema', j('{"id": "foo"}'), j('{"properties": {"id": {"type": "unknown"}}, "required": ["id"]}'))).toBe(
      'eval_builtin_error: json.match_schema: has a primitive type that is NOT VALID -- given: /unknown/ Expected valid values are:[array boolean integer number null object string]',
    );
    expect(err('json.match_schema', '{', schema)).toBe('eval_builtin_error: json.match_schema: invalid JSON string');
    expect(err('json.match_schema', 1, schema)).toBe('eval_builtin_error: json.match_schema: wrong type, expected string or object');
  });
  it('verify_schema', () => {
    expect(json('json.verify_schema', schema)).toBe('[true,null]');
    expect(json('json.verify_schema', '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}')).toBe('[true,null]');
    expect(json('json.verify_schema', '{"properties": {"id": {"type": "UNKNOWN"}}}')).toBe(
      '[false,"jsonschema: has a primitive type that is NOT VALID -- given: /UNKNOWN/ Expected valid values are:[array boolean integer number null object string]"]',
    );
    expect(json('json.verify_schema', '{')).toBe('[false,"jsonschema: invalid JSON string"]');
    expect(json('json.verify_schema', 5)).toBe('[false,"jsonschema: wrong type, expected string or object"]');
  });
});
