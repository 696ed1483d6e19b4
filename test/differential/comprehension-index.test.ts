// Indexed comprehensions (compiler/passes/comprehension-index.ts, OPA's comprehension
// indexing; looked up through runtime/eval/compr-index.ts): a comprehension keyed on
// outer variables must give what the same comprehension gives when it cannot be
// indexed (the key test written so it reads the outer variable on both sides), on the
// generated-JS back end, the closures and the reference interpreter: arrays (in
// order), sets and objects, one and two keys, a function parameter as the key, keys equal as
// numbers (1 and 1.0) and composite keys, no match (an empty collection), and `with`
// (a derived context builds its own table). An indexed object comprehension whose
// group has one key twice keeps the later value, as OPA's comprehension cache does
// (topdown buildComprehensionCacheObject: Object.Insert), where the unindexed one
// raises "object keys must be unique".
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS } from '../../runtime/index.js';

const POLICY = `package p

by_value contains [v, ks] if {
	v := data.items[_]
	ks := [k | some k; v == data.items[k]]
}

by_value_plain contains [v, ks] if {
	v := data.items[_]
	ks := [k | some k; data.items[k] == json.unmarshal(json.marshal(v))]
}

as_set contains [v, ks] if {
	v := data.items[_]
	ks := {k | some k; data.items[k] = v}
}

as_set_plain contains [v, ks] if {
	v := data.items[_]
	ks := {k | some k; data.items[k] == json.unmarshal(json.marshal(v))}
}

two_keys contains [a, b, n] if {
	some a in ["x", "y"]
	some b in [1, 2]
	ps := [p | some p in data.pairs; p[0] == a; b == p[1]]
	n := count(ps)
}

two_keys_plain contains [a, b, n] if {
	some a in ["x", "y"]
	some b in [1, 2]
	n := count([p | some p in data.pairs; p[0] == concat("", [a]); p[1] == b + 0])
}

f(v) := [k | some k; data.items[k] == v]

f_plain(v) := [k | some k; data.items[k] == json.unmarshal(json.marshal(v))]

calls := [f(v) | some v in data.items]

calls_plain := [f_plain(v) | some v in data.items]

as_object contains [v, o] if {
	v := data.items[_]
	o := {k: x | some k; x := data.items[k]; v == x}
}

as_object_plain contains [v, o] if {
	v := data.items[_]
	o := {k: x | some k; x := data.items[k]; x == json.unmarshal(json.marshal(v))}
}

# Groups by the first letter; a repeated name in a group: the later value wins.
by_letter contains [l, o] if {
	some l in ["a", "b"]
	o := {name: i | some i; name := data.names[i]; l == substring(name, 0, 1)}
}

by_letter_plain contains [l, o] if {
	some l in ["a", "b"]
	o := {name: i | some i; name := data.names[i]; substring(name, 0, 1) == concat("", [l])}
}

missing contains ks if {
	some v in ["none", 3]
	ks := [k | some k; v == data.items[k]]
}

replaced := x if {
	x := by_value with data.items as ["a", "b", "a"]
}
`;

const DATA = [
  { items: ['a', 'b', 'a', 'c', 'b', 'a'], pairs: [['x', 1], ['x', 2], ['y', 1], ['x', 1]] },
  { items: [1, 1.0, 2, { a: 1 }, { a: 1 }, [1], 2.5], pairs: [] },
  { items: [], pairs: [['y', 2]] },
];

const NAMES = { names: ['ann', 'bob', 'al', 'ann', 'bea'] };

const PAIRS: [string, string][] = [
  ['by_value', 'by_value_plain'],
  ['as_set', 'as_set_plain'],
  ['two_keys', 'two_keys_plain'],
  ['calls', 'calls_plain'],
  ['as_object', 'as_object_plain'],
];

describe('indexed comprehensions', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const value = (p: typeof js, q: string, data: unknown) => JSON.stringify(p.prepare(q).eval({ data: fromJS(data) }).map((r) => toJS(r.expressions[0]!.value)));
  const interp = (q: string, data: unknown) => JSON.stringify(prepareInterpreted(js, q).eval({ data: fromJS(data) }).map((r) => toJS(r.expressions[0]!.value)));

  it('marks the comprehensions it can index, and only those', () => {
    const marked = (d: (typeof js.ir.groups)[number]['defs'][number]) => [...d.body.map((s) => (s.k === 'let' ? s.expr : undefined)), d.value].some((e) => e?.k === 'compr' && e.index !== undefined);
    const indexed = js.ir.groups.filter((g) => g.defs.some(marked)).map((g) => g.path.join('.'));
    expect(indexed.sort()).toEqual(['p.as_object', 'p.as_set', 'p.by_letter', 'p.by_value', 'p.f', 'p.missing', 'p.two_keys']);
  });

  for (const [k, data] of DATA.entries()) {
    for (const [indexed, plain] of PAIRS) {
      it(`${indexed} agrees with ${plain} (data #${k})`, () => {
        const want = value(js, `data.p.${plain}`, data);
        expect(value(js, `data.p.${indexed}`, data)).toBe(want);
        expect(value(closures, `data.p.${indexed}`, data)).toBe(want);
        expect(interp(`data.p.${indexed}`, data)).toBe(want);
      });
    }
  }

  it('keeps the later value of a repeated key in an indexed object comprehension, as OPA', () => {
    const want = JSON.stringify([[['a', { al: 2, ann: 3 }], ['b', { bea: 4, bob: 1 }]]]);
    expect(value(js, 'data.p.by_letter', NAMES)).toBe(want);
    expect(value(closures, 'data.p.by_letter', NAMES)).toBe(want);
    expect(interp('data.p.by_letter', NAMES)).toBe(want);
    // Written so it cannot be indexed, the same comprehension is a conflict (OPA: eval_conflict_error).
    expect(() => value(js, 'data.p.by_letter_plain', NAMES)).toThrow(/object keys must be unique/);
    expect(() => interp('data.p.by_letter_plain', NAMES)).toThrow(/object keys must be unique/);
  });

  it('gives an empty collection for a key no solution has', () => {
    expect(value(js, 'data.p.missing', DATA[0])).toBe('[[[]]]');
  });

  it('builds its own table under with', () => {
    const want = JSON.stringify([[['a', [0, 2]], ['b', [1]]]]);
    for (const p of [js, closures]) {
      const q = p.prepare('x := data.p.by_value; y := data.p.replaced');
      const rows = q.eval({ data: fromJS(DATA[0]) });
      expect(JSON.stringify(toJS(rows[0]!.bindings.y!))).toBe(JSON.stringify(JSON.parse(want)[0]));
      expect((toJS(rows[0]!.bindings.x!) as unknown[]).length).toBe(3);
    }
  });
});
