// Object literals whose keys are distinct constant strings are built in place by the
// generated code (compiler/codegen/js/emit-direct.ts stringKeyedObject: values in order,
// stored straight into the props object, the collection cap checked as RObject.set
// would). They must give what the closure back end and the interpreter give: keys that
// are not identifiers (`a-b`, `1`, `__proto__`, `constructor`), an undefined value,
// values that are objects themselves, a builtin error in a later value (strict mode),
// repeated keys (the shared path), and the collection cap.
import { afterEach, describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { fromJS, RObject, toJS } from '../../../runtime/index.js';
import { expectSameOutcomes, queryOutcome } from './three-way.js';
import { setEvalLimits, DEFAULT_MAX_COLLECTION_SIZE } from '../../../runtime/eval/limits.js';

const POLICY = `package p

plain := {"msg": input.m, "field": input.f}
odd_keys := {"a-b": 1, "1": input.m, "__proto__": input.f, "constructor": "c", "": 0}
missing := {"msg": input.m, "gone": input.nothing}
nested := {"outer": {"inner": input.m}, "list": [input.m, input.f]}
later_error := {"first": input.m, "second": to_number(input.m)}
repeated := {"k": input.m, "k": input.m}
conflict := {"k": input.m, "k": input.f}
in_set contains {"m": x, "i": i} if some i, x in input.xs
size := count({"a": 1, "b": input.m, "c": input.f})
`;

const QUERIES = ['data.p.plain', 'data.p.odd_keys', 'data.p.missing', 'data.p.nested', 'data.p.later_error', 'data.p.repeated', 'data.p.conflict', 'data.p.in_set', 'data.p.size', 'data.p'];

const INPUTS = [
  { m: 'one', f: 'two', xs: ['a', 'b'] },
  { m: '12', f: 12, xs: [] },
  { m: 'x' },
];

describe('object literals with constant string keys', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const data = fromJS({});
  afterEach(() => setEvalLimits({ maxCollectionSize: DEFAULT_MAX_COLLECTION_SIZE }));

  for (const input of INPUTS) {
    for (const strict of [false, true]) {
      it(`agree with the closures and the interpreter (${JSON.stringify(input)}, ${strict ? 'strict' : 'lenient'})`, () => {
        expectSameOutcomes(js, closures, QUERIES, { input: fromJS(input), data, strictBuiltinErrors: strict });
      });
    }
  }

  it('keep keys that are not identifiers as ordinary keys', () => {
    const v = js.prepare('data.p.odd_keys').eval({ input: fromJS(INPUTS[0]), data })[0]!.expressions[0]!.value as RObject;
    expect(v).toBeInstanceOf(RObject);
    expect(v.keys()).toEqual(['', '1', '__proto__', 'a-b', 'constructor']);
    expect(v.values()).toEqual([0, 'one', 'two', 1, 'c']);
    expect(v.get('__proto__')).toBe('two');
  });

  it('check the collection cap as each key is added', () => {
    const input = fromJS({ m: 'one', f: 'two' });
    setEvalLimits({ maxCollectionSize: 2 });
    const a = queryOutcome(() => js.prepare('data.p.size').eval({ input, data }) as never);
    expect(a).toMatchObject({ code: 'eval_cancel_error', error: expect.stringMatching(/collection size limit exceeded \(more than 2 members/) });
    expect(a).toEqual(queryOutcome(() => closures.prepare('data.p.size').eval({ input, data }) as never));
    expect(queryOutcome(() => js.prepare('data.p.plain').eval({ input, data }) as never)).toEqual({ ok: [{ msg: 'one', field: 'two' }] });
  });
});
