// The generated decision of an indexed constant complete rule
// (compiler/codegen/js/index-decision.ts: one lookup, then the key's bucket test, with
// string-key buckets skipping the condition the lookup settled) must decide what the
// closure back end and the reference interpreter decide: trivial buckets, buckets with
// more conditions, several definitions per key (also more than one generated test
// takes), definitions without the indexed condition before and after keyed ones,
// non-string keys (1 and 1.0), defaults, refs into base data, deeper input paths, and
// inputs that are not objects, missing, or hold composites at the indexed path.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS, type Value } from '../../runtime/index.js';

const many = Array.from({ length: 12 }, (_, i) => `crowd if { input.x == "m"; input.n == ${i} }`).join('\n');

const POLICY = `package d
import rego.v1

default plain := false
plain if input.x == "a"
plain if input.x == "b"
plain if input.x == 1
plain if input.x == true
plain if input.x == null

cond if { input.x == "a"; input.n > 1 }
cond if { input.x == "a"; input.n == 0 }
cond if input.x == "b"

early if input.y == "first"
early if input.x == "a"
early if { input.x == "b"; input.n == 3 }

late if input.x == "a"
late if input.x == "b"
late if input.n == 7

default deep := "no"
deep := "yes" if input.a.b == "one"
deep := "yes" if { input.a.b == "two"; input.n }

from_data if data.cfg.mode == "strict"
from_data if { data.cfg.mode == "lax"; input.n == 1 }

${many}
crowd if input.x == "few"
`;

const INPUTS: (unknown | undefined)[] = [
  { x: 'a' }, { x: 'a', n: 0 }, { x: 'a', n: 2 }, { x: 'b' }, { x: 'b', n: 3 }, { x: 'c', n: 7 },
  { x: 1 }, { x: 1.0 }, { x: 2 }, { x: true }, { x: false }, { x: null }, { x: ['a'] }, { x: { a: 1 } },
  { y: 'first' }, { y: 'first', x: 'zz' }, { a: { b: 'one' } }, { a: { b: 'two' }, n: false }, { a: { b: 'two' } },
  { a: 'not-an-object' }, { a: ['one'] }, { x: 'm', n: 0 }, { x: 'm', n: 11 }, { x: 'm', n: 12 }, { x: 'few' },
  { n: 1 }, 'a string input', [1, 2], 3, null, undefined,
];

const RULES = ['plain', 'cond', 'early', 'late', 'deep', 'from_data', 'crowd'];
const DATA = [{ cfg: { mode: 'strict' } }, { cfg: { mode: 'lax' } }, {}];

describe('indexed decisions', () => {
  const js = compile([{ file: 'd.rego', text: POLICY }]);
  const closures = compile([{ file: 'd.rego', text: POLICY }], { backend: 'closures' });
  it('indexes every rule this test is about', () => {
    const indexed = js.ir.groups.filter((g) => g.index).map((g) => g.path.join('.'));
    expect(indexed).toEqual(expect.arrayContaining(RULES.map((r) => `d.${r}`)));
  });
  const decisions = RULES.map((r) => ({ r, js: js.prepareDecision(['d', r]), closures: closures.prepareDecision(['d', r]), interp: prepareInterpreted(js, `data.d.${r}`) }));
  for (const [k, input] of INPUTS.entries()) {
    it(`agree for input ${JSON.stringify(input) ?? 'undefined'}`, () => {
      const i = input === undefined ? undefined : fromJS(input);
      for (const d of DATA) {
        const data = fromJS(d);
        for (const q of decisions) {
          const out = (v: Value | undefined) => (v === undefined ? undefined : toJS(v));
          const got = out(q.js({ input: i, data }));
          expect(got, `${q.r} #${k}`).toEqual(out(q.closures({ input: i, data })));
          const rows = q.interp.eval({ input: i, data }).map((row) => toJS(row.expressions[0]!.value));
          expect(got === undefined ? [] : [got], `${q.r} #${k} (interpreter)`).toEqual(rows);
        }
      }
    });
  }
  it('decides the expected values', () => {
    const dec = (r: string, input: unknown, d: unknown = {}) => {
      const v = js.prepareDecision(['d', r])({ input: fromJS(input), data: fromJS(d) });
      return v === undefined ? undefined : toJS(v);
    };
    expect(dec('plain', { x: 'a' })).toBe(true);
    expect(dec('plain', { x: 'z' })).toBe(false);
    expect(dec('plain', { x: 1.0 })).toBe(true);
    expect(dec('cond', { x: 'a', n: 1 })).toBeUndefined();
    expect(dec('cond', { x: 'a', n: 0 })).toBe(true);
    expect(dec('early', { y: 'first', x: 'q' })).toBe(true);
    expect(dec('late', { x: 'zz', n: 7 })).toBe(true);
    expect(dec('deep', { a: { b: 'two' }, n: 1 })).toBe('yes');
    expect(dec('deep', { a: { b: 'two' } })).toBe('no');
    expect(dec('crowd', { x: 'm', n: 11 })).toBe(true);
    expect(dec('crowd', { x: 'm', n: 12 })).toBeUndefined();
    expect(dec('from_data', { n: 1 }, { cfg: { mode: 'lax' } })).toBe(true);
  });
  it('decides under `with` through the rule that replaces input or data', () => {
    const text = `${POLICY}\nvia_input if plain with input as {"x": "b"}\nvia_data if from_data with data.cfg.mode as "strict"\n`;
    const p = compile([{ file: 'w.rego', text }]);
    for (const r of ['via_input', 'via_data']) expect(p.prepareDecision(['d', r])({ input: fromJS({ x: 'zz' }), data: fromJS({}) })).toBe(true);
  });
});
