// Tests of the CLI's output formats: OPA-style JSON of values, result sets in
// json/pretty/raw, and the error shapes and texts.
import { describe, expect, it } from 'vitest';
import type { ResultRow } from '../../../compiler/api.js';
import { RegoError, RegoErrors, EvalError } from '../../../compiler/index.js';
import { errorsJSON, errorsText, quote, resultJSON, resultPretty, resultRaw, table, toJSON, toOutputErrors } from '../../../cli/output.js';
import { RObject, RSet, fromJS, parseNumber } from '../../../runtime/value/index.js';

const loc = (file: string, row: number, col: number) => ({ file, row, col, offset: 0 });

function row(values: unknown[], bindings: Record<string, unknown> = {}, texts?: string[]): ResultRow {
  return {
    expressions: values.map((v, i) => ({ value: fromJS(v), text: texts?.[i] ?? `e${i}`, location: { row: 1, col: 1 + i * 5 } })),
    bindings: Object.fromEntries(Object.entries(bindings).map(([k, v]) => [k, fromJS(v)])),
  };
}

describe('toJSON', () => {
  it('prints values like Go: sorted keys, sets as arrays, exact numbers, HTML-safe', () => {
    const o = RObject.fromEntries([
      ['b', RSet.of([3, 1, 2])],
      ['a', parseNumber('123456789012345678901234567890')],
      [1, 'one'],
    ]);
    expect(toJSON(o, '')).toBe('{"1":"one","a":123456789012345678901234567890,"b":[1,2,3]}');
    expect(toJSON(['<a&b>'], '')).toBe('["\\u003ca\\u0026b\\u003e"]');
    expect(quote('x\ny')).toBe('"x\\ny"');
  });

  it('indents with two spaces and keeps plain-object key order', () => {
    expect(toJSON({ z: 1, a: [true, null], e: {}, l: [] })).toBe('{\n  "z": 1,\n  "a": [\n    true,\n    null\n  ],\n  "e": {},\n  "l": []\n}');
  });
});

describe('result formats', () => {
  it('json: expressions with text and location, bindings only when present', () => {
    const out = JSON.parse(resultJSON([row([true], {}, ['data.x.allow'])]));
    expect(out).toEqual({ result: [{ expressions: [{ value: true, text: 'data.x.allow', location: { row: 1, col: 1 } }] }] });
    const withB = JSON.parse(resultJSON([row([true], { y: 2, x: [1] }, ['x = [1]'])]));
    expect(withB.result[0].bindings).toEqual({ x: [1], y: 2 });
    expect(Object.keys(withB.result[0])).toEqual(['expressions', 'bindings']);
    expect(resultJSON([])).toBe('{}');
  });

  it('pretty: undefined, a single value, or a table', () => {
    expect(resultPretty([])).toBe('undefined\n');
    expect(resultPretty([row([{ a: 1 }])])).toBe('{\n  "a": 1\n}\n');
    expect(resultPretty([row([true, false])])).toBe('true\n');
    const t = resultPretty([row([true], { x: 1 }), row([true], { x: 'two' })]);
    expect(t).toBe(['+-------+', '|   x   |', '+-------+', '| 1     |', '| "two" |', '+-------+', ''].join('\n'));
  });

  it('raw: strings unquoted, other values compact, one line per row', () => {
    expect(resultRaw([row(['hi', [1, 2]]), row([{ k: 'v' }])])).toBe('hi [1,2]\n{"k":"v"}\n');
    expect(resultRaw([])).toBe('');
  });

  it('table pads every column to its widest cell', () => {
    expect(table(['a', 'bb'], [['1', '2'], ['333', '']])).toBe(
      ['+-----+----+', '|  a  | bb |', '+-----+----+', '| 1   | 2  |', '| 333 |    |', '+-----+----+', ''].join('\n'),
    );
  });
});

describe('errors', () => {
  const parse = new RegoError('rego_parse_error', 'unexpected eof token', loc('p.rego', 3, 7));
  const unsafe = new RegoError('rego_unsafe_var_error', 'var x is unsafe', loc('p.rego', 5, 2));

  it('flattens RegoErrors, RegoError, EvalError and plain errors', () => {
    expect(toOutputErrors(new RegoErrors([parse, unsafe]))).toEqual([
      { message: 'unexpected eof token', code: 'rego_parse_error', location: { file: 'p.rego', row: 3, col: 7 } },
      { message: 'var x is unsafe', code: 'rego_unsafe_var_error', location: { file: 'p.rego', row: 5, col: 2 } },
    ]);
    expect(toOutputErrors(new EvalError('eval_builtin_error', 'div: divide by zero'))).toEqual([{ message: 'div: divide by zero', code: 'eval_builtin_error' }]);
    expect(toOutputErrors(new Error('boom'))).toEqual([{ message: 'boom' }]);
  });

  it('prints the JSON shape and OPA error texts', () => {
    const errs = toOutputErrors(new RegoErrors([parse, unsafe]));
    const json = JSON.parse(errorsJSON(errs));
    expect(json.errors).toHaveLength(2);
    expect(Object.keys(json.errors[0])).toEqual(['message', 'code', 'location']);
    expect(errorsText(errs)).toBe('2 errors occurred:\np.rego:3: rego_parse_error: unexpected eof token\np.rego:5: rego_unsafe_var_error: var x is unsafe');
    expect(errorsText(errs.slice(0, 1))).toBe('1 error occurred: p.rego:3: rego_parse_error: unexpected eof token');
  });
});
