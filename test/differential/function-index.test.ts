// Function groups indexed on a constant argument (compiler/codegen/js/rule-compiler.ts,
// compileFunctionIndex: `f("E") = …`, `f("P") = …` become a key → definitions map, as
// OPA's rule index does for functions) must give what the reference interpreter gives
// (it tries every definition): hits, misses, 1 and 1.0, composite and big-number
// arguments, definitions with a variable at the indexed position, else chains,
// conflicts between an indexed and an unindexed definition, and `with` mocks.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { outcome } from '../unit/codegen/three-way.js';
import { fromJS, parseJSON, type Value } from '../../runtime/index.js';

const POLICY = `package p

mult("k") := 1000
mult("M") := 1000000
mult("") := 1
mult(1) := "one"
mult(true) := "yes"
mult(null) := "nothing"
mult(x) := "other" if is_array(x)

two(a, "x") := concat("-", [a, "x"])
two(a, "y") := concat("-", [a, "y"])
two("first", b) := b

chain(1) := "one" if input.flag
else := "not flagged"
chain(2) := "two"

clash("a") := 1
clash(x) := 2 if x == input.clash

big(100000000000000000000) := "1e20"
big(1) := "small"

arg := input.arg
r_mult := mult(arg)
r_two := two(input.a, input.b)
r_chain := chain(arg)
r_clash := clash(arg)
r_big := big(arg)
r_mocked := x if x := mult(arg) with mult as "mocked"
r_mock_fn := x if x := mult(arg) with mult as two_ish
two_ish(x) := "fn"
r_not if not mult(arg)
`;

const ARGS: unknown[] = ['k', 'M', '', 'G', 1, 1.0, 2, true, false, null, [1], { a: 1 }, 'first', 'a'];
const INPUTS: unknown[] = [
  ...ARGS.map((arg) => ({ arg })),
  ...ARGS.map((arg) => ({ arg, flag: true, clash: arg })),
  { a: 'first', b: 'x' },
  { a: 'z', b: 'y' },
  { a: 'first', b: 'q' },
  { a: 1, b: 'x' },
  {},
];
const QUERIES = ['r_mult', 'r_two', 'r_chain', 'r_clash', 'r_mocked', 'r_mock_fn', 'r_not'];


describe('function index lookups', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const data = fromJS({});
  for (const [k, input] of INPUTS.entries()) {
    it(`agree for input ${JSON.stringify(input)}`, () => {
      const i = fromJS(input);
      for (const q of QUERIES) {
        const first = (p: { eval: (o: { input?: Value; data: Value }) => { expressions: { value: Value }[] }[] }) =>
          outcome(() => p.eval({ input: i, data })[0]?.expressions[0]!.value);
        const want = first(prepareInterpreted(js, `data.p.${q}`));
        expect(first(js.prepare(`data.p.${q}`)), `${q} #${k}`).toEqual(want);
        expect(first(closures.prepare(`data.p.${q}`)), `${q} #${k} closures`).toEqual(want);
        expect(outcome(() => js.prepareDecision(['p', q])({ input: i, data })), `${q} decision #${k}`).toEqual(want);
      }
    });
  }

  it('finds the expected values (not only agreement)', () => {
    const dec = (q: string, input: unknown) => outcome(() => js.prepareDecision(['p', q])({ input: fromJS(input), data }));
    expect(dec('r_mult', { arg: 'M' })).toEqual({ value: 1000000 });
    expect(dec('r_mult', { arg: 1.0 })).toEqual({ value: 'one' });
    expect(dec('r_mult', { arg: [1] })).toEqual({ value: 'other' });
    expect(dec('r_mult', { arg: 'G' })).toEqual({ value: undefined });
    expect(dec('r_two', { a: 'first', b: 'x' })).toEqual({ error: 'eval_conflict_error' });
    expect(dec('r_two', { a: 'z', b: 'y' })).toEqual({ value: 'z-y' });
    expect(dec('r_chain', { arg: 1 })).toEqual({ value: 'not flagged' });
    expect(dec('r_clash', { arg: 'a', clash: 'a' })).toEqual({ error: 'eval_conflict_error' });
    expect(dec('r_not', { arg: 'G' })).toEqual({ value: true });
  });

  it('agrees on a big-number constant argument', () => {
    for (const text of ['{"arg": 100000000000000000000}', '{"arg": 1e20}', '{"arg": 1}', '{"arg": 100000000000000000001}']) {
      const input = parseJSON(text);
      const want = outcome(() => prepareInterpreted(js, 'data.p.r_big').eval({ input, data })[0]?.expressions[0]!.value);
      expect(outcome(() => js.prepareDecision(['p', 'r_big'])({ input, data })), text).toEqual(want);
      expect(want, text).toEqual({ value: text.includes('0001') ? undefined : text === '{"arg": 1}' ? 'small' : '1e20' });
    }
  });
});
