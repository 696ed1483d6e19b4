// Builtin calls in generated code call the builtin's implementation in place when no
// `with` mock is active (compiler/codegen/js/emit-direct.ts builtinCall), and through
// the shared invoke path (runtime/eval/rules.ts invokeBuiltin) otherwise. Both must give
// what the closure back end and the reference interpreter give: values, an undefined
// result for a failing builtin, the located error in strict mode, builtin mocks
// (`with count as …`, by value and by function), and the heap room check before a large
// string argument.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { fromJS, toJS } from '../../../runtime/index.js';
import { expectSameOutcomes, queryOutcome } from './three-way.js';
import { ClosureCompiler } from '../../../compiler/codegen/js/closures.js';
import { setEvalLimits } from '../../../runtime/eval/limits.js';

const POLICY = `package p

n := to_number(input.s)
up := upper(input.s)
size := count(input.xs)
joined := concat("-", [x | some x in input.xs; is_string(x)])
in_loop contains y if {
	some x in input.xs
	y := to_number(x)
}
mocked_value := x if {
	x := count(input.xs) with count as 99
}
three(_) := 3
mocked_fn := x if {
	x := count(input.xs) with count as three
}
other_under_mock := x if {
	x := upper(input.s) with count as 99
}
parsed := json.unmarshal(input.s)
chars := count(input.s)
`;

const INPUTS = [
  { s: '12', xs: ['1', '2', 3] },
  { s: 'abc', xs: ['x', '2.5'] },
  { s: '[1, 2]', xs: [] },
  { s: 7, xs: 'not a collection' },
];

const QUERIES = ['data.p.n', 'data.p.up', 'data.p.size', 'data.p.joined', 'data.p.in_loop', 'data.p.mocked_value', 'data.p.mocked_fn', 'data.p.other_under_mock', 'data.p.parsed'];

describe('builtin calls in generated code', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const data = fromJS({});
  afterEach(() => vi.restoreAllMocks());

  for (const strict of [false, true]) {
    for (const input of INPUTS) {
      it(`agree with the closures and the interpreter (${strict ? 'strict' : 'lenient'}, ${JSON.stringify(input)})`, () => {
        expectSameOutcomes(js, closures, QUERIES, { input: fromJS(input), data, strictBuiltinErrors: strict });
      });
    }
  }

  it('make a failing call undefined, or a located error in strict mode', () => {
    const input = fromJS({ s: 'abc', xs: [] });
    expect(queryOutcome(() => js.prepare('data.p.n').eval({ input, data }) as never)).toEqual({ ok: [] });
    const strict = queryOutcome(() => js.prepare('data.p.n').eval({ input, data, strictBuiltinErrors: true }) as never);
    expect(strict).toMatchObject({
      code: 'eval_builtin_error',
      error: 'to_number: strconv.ParseFloat: parsing "abc": invalid syntax',
      location: { file: 'p.rego', row: 3 },
    });
  });

  it('call the implementation in place, and the shared path under a mock', () => {
    const invoke = vi.spyOn(ClosureCompiler.prototype, 'invoke');
    const input = fromJS(INPUTS[0]);
    const value = (q: string): unknown => toJS(js.prepare(q).eval({ input, data })[0]!.expressions[0]!.value);
    expect(value('data.p.size')).toBe(3);
    expect(value('data.p.joined')).toBe('1-2');
    expect(invoke).not.toHaveBeenCalled();
    expect(value('data.p.mocked_value')).toBe(99);
    expect(value('data.p.mocked_fn')).toBe(3);
    expect(value('data.p.other_under_mock')).toBe('12');
    expect(invoke).toHaveBeenCalledWith(expect.anything(), 'upper', ['12'], expect.anything(), expect.anything());
  });

  it('check the heap room before a large string argument', () => {
    setEvalLimits({ heapLimitMb: 1 });
    try {
      const input = fromJS({ s: '"' + 'a'.repeat(2 << 20) + '"', xs: [] });
      const r = queryOutcome(() => js.prepare('data.p.parsed').eval({ input, data }) as never);
      expect(r).toMatchObject({ code: 'eval_cancel_error', error: expect.stringMatching(/json\.unmarshal on a 2 MB string could exceed/) });
    } finally {
      setEvalLimits({ heapLimitMb: 0 });
    }
  });

  it('no room check for a builtin that only reads its string (count)', () => {
    setEvalLimits({ heapLimitMb: 1 });
    try {
      const input = fromJS({ s: 'a'.repeat(2 << 20), xs: [] });
      expect(toJS(js.prepare('data.p.chars').eval({ input, data })[0]!.expressions[0]!.value)).toBe(2 << 20);
    } finally {
      setEvalLimits({ heapLimitMb: 0 });
    }
  });
});
