// prepareDecision (the Data API's direct document read) must give exactly what
// the query `data.<path>` gives, for every kind of path.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { fromJS, toJS } from '../../../runtime/value/index.js';

const policy = compile([
  {
    file: 'a.rego',
    text: [
      'package app',
      'allow if input.user == "alice"',
      'limits := {"cpu": 2, "mem": {"max": 8}}',
      'users contains u if some u in ["bob", "alice"]',
      'by_name[n] := {"len": count(n)} if some n in ["ab", "abc"]',
      'f(x) := x + 1',
      'boom := to_number("not a number")',
    ].join('\n'),
  },
]);
const data = fromJS({ base: { x: [1, 2], y: { z: true } }, app: { extra: 'kept' } });
const input = fromJS({ user: 'alice' });

const paths = [
  ['app', 'allow'],
  ['app', 'limits'],
  ['app', 'limits', 'mem', 'max'],
  ['app', 'users'],
  ['app', 'by_name'],
  ['app', 'by_name', 'abc'],
  ['app', 'by_name', 'abc', 'len'],
  ['app', 'by_name', 'zzz'],
  ['app', 'extra'],
  ['app', 'nothing'],
  ['base'],
  ['base', 'y', 'z'],
  ['missing', 'deeper'],
  ['app', 'f'],
  ['app', 'boom'],
];

describe('prepareDecision', () => {
  for (const path of paths) {
    it(`data.${path.join('.')} equals the query result`, () => {
      const direct = policy.prepareDecision(path)({ input, data });
      const rows = policy.prepare('data.' + path.map((p) => JSON.stringify(p)).join('.').replaceAll('"', '')).eval({ input, data });
      const viaQuery = rows.length ? rows[0]!.expressions[0]!.value : undefined;
      expect(direct === undefined ? undefined : toJS(direct)).toEqual(viaQuery === undefined ? undefined : toJS(viaQuery));
    });
  }

  it('reads base data without evaluating unrelated rules', () => {
    // `boom` raises an error in strict mode: reading base data must not touch it.
    expect(toJS(policy.prepareDecision(['base', 'x'])({ data, strictBuiltinErrors: true })!)).toEqual([1, 2]);
    expect(() => policy.prepareDecision(['app'])({ data, strictBuiltinErrors: true })).toThrow(/to_number/);
  });
});
