// A partial set rule streamed to a consumer (compiler/codegen/js/program.ts
// generateSet) is memoized only when the consumer took every member: a later
// reference must see the complete set, never the prefix an early stop left behind.
// Checked against the reference interpreter, on both back ends, with expected values.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS, type Value } from '../../runtime/index.js';

const POLICY = `package p

gen contains {"v": x, "k": k} if {
  some x in input.xs
  k := "a"
}
gen contains {"v": x, "k": "b"} if {
  some x in input.ys
}

has_one if gen[{"v": 1, "k": _}]
early_then_full := [has, n, ks] if {
  has := has_one
  n := count([v | gen[{"v": v, "k": "a"}]])
  ks := sort([k | gen[{"v": _, "k": k}]])
}
twice := [a, b] if {
  a := sort([v | gen[{"v": v, "k": "a"}]])
  b := sort([v | gen[{"v": v, "k": "b"}]])
}
under_with := [a, b] if {
  a := count([v | gen[{"v": v, "k": "a"}]])
  b := count([v | gen[{"v": v, "k": "a"}]]) with input.xs as [7]
}
`;

const EXPECTED: Record<string, unknown> = {
  early_then_full: [true, 3, ['a', 'a', 'a', 'b', 'b']],
  twice: [[1, 2, 3], [4, 5]],
  under_with: [3, 1],
};

describe('streamed set rule memo', () => {
  const input = fromJS({ xs: [1, 2, 3], ys: [4, 5] });
  const data = fromJS({});
  for (const backend of ['js', 'closures'] as const) {
    const policy = compile([{ file: 'p.rego', text: POLICY }], { backend });
    for (const [rule, want] of Object.entries(EXPECTED)) {
      it(`${rule} (${backend})`, () => {
        const v = policy.prepareDecision(['p', rule])({ input, data });
        expect(v === undefined ? undefined : toJS(v)).toEqual(want);
        const q = (p: { eval: (o: { input?: Value; data: Value }) => { expressions: { value: Value }[] }[] }) => p.eval({ input, data }).map((r) => toJS(r.expressions[0]!.value));
        expect(q(policy.prepare(`data.p.${rule}`))).toEqual(q(prepareInterpreted(policy, `data.p.${rule}`)));
      });
    }
  }
});
