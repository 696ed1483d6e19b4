// go-yaml's messages (server/api/go-yaml-errors.ts) for bodies js-yaml rejects: one
// row per message kind, with the exact text OPA's decoder gives.
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { goYAMLError } from '../../../server/api/go-yaml-errors.js';

describe('goYAMLError (go-yaml v2 via sigs.k8s.io/yaml)', () => {
  const cases: [string, string][] = [
    // scanner errors: 1-based line, left out on the first line
    ['a: b: c', 'yaml: mapping values are not allowed in this context'],
    ['a: 1\nb: c: d', 'yaml: line 2: mapping values are not allowed in this context'],
    ['x: y\n  z: w', 'yaml: line 2: mapping values are not allowed in this context'],
    ['a:\n\tb: 1', 'yaml: line 2: found character that cannot start any token'],
    ['\ta: 1', 'yaml: found character that cannot start any token'],
    ['a: @x', 'yaml: found character that cannot start any token'],
    ['a: 1\nb: `x`', 'yaml: line 2: found character that cannot start any token'],
    ['a: [1, @x]', 'yaml: found character that cannot start any token'],
    ['"abc', 'yaml: found unexpected end of stream'],
    ["a: 'abc\nb: 1", 'yaml: line 2: found unexpected end of stream'],
    ['a: "abc\n', 'yaml: line 2: found unexpected end of stream'],
    // reader errors carry no line
    ['a: \u0001', 'yaml: control characters are not allowed'],
    // parser errors: 0-based line of the offending token
    ['{"input": 1', "yaml: line 1: did not find expected ',' or '}'"],
    ['input: [unclosed', "yaml: line 1: did not find expected ',' or ']'"],
    ['input: [1,\n 2', "yaml: line 2: did not find expected ',' or ']'"],
    ['{"input": ', 'yaml: line 1: did not find expected node content'],
    ['[1,', 'yaml: line 1: did not find expected node content'],
    ['a: [1, 2}', "yaml: did not find expected ',' or ']'"],
    ['{"a": 1 "b": 2}', "yaml: did not find expected ',' or '}'"],
    ['a: b\n- c', 'yaml: line 1: did not find expected key'],
    ['a:\n  b: 1\n c: 2', 'yaml: line 2: did not find expected key'],
    ['- a\nb: 1', "yaml: line 1: did not find expected '-' indicator"],
    ['x:\n  - a\n  b: 1', "yaml: line 2: did not find expected '-' indicator"],
    // composer errors
    ['a: &x 1\nb: *y', "yaml: unknown anchor 'y' referenced"],
    // no go-yaml equivalent known: js-yaml's reason, in go-yaml's shape
    ['a: 1\na: 2', 'yaml: line 2: duplicated mapping key'],
  ];
  it.each(cases)('%j → %s', (text, message) => {
    let error: unknown;
    try {
      load(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeDefined();
    expect(goYAMLError(text, error)).toBe(message);
  });

  it('falls back to the first line of a non-js-yaml error', () => {
    expect(goYAMLError('x', new RangeError('Maximum call stack size exceeded\nmore'))).toBe('yaml: Maximum call stack size exceeded');
  });
});
