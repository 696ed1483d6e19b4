// Functions without iteration that call only such functions ("leaf" functions,
// compiler/codegen/js/program.ts leafFunctions) are not memoized per evaluation: a memo
// costs about as much as running them. Which functions qualify, and that calls repeated
// with the same and with different arguments still give the interpreter's results (also
// with nondeterministic builtins, whose own per-query cache keeps them stable, and in a
// policy that prints, where every function keeps its memo so a call prints once).
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS, type Value } from '../../runtime/index.js';

const POLICY = `package p

inc(x) := x + 1

same(a, b) if a == b

match(pattern, "string", value) if pattern == value

match(pattern, "re2", value) if regex.match(pattern, value)

both(x) := [inc(x), inc(x)]

loops(xs) := [y | some x in xs; y := inc(x)]

calls_loop(xs) := count(loops(xs))

every_ok(xs) if every x in xs { x > 0 }

pick(n) := rand.intn("seed", n)

results := [inc(1), inc(1), inc(2), both(3), loops([1, 2]), calls_loop([1, 2, 3]), same(1, 1)]

not_same if not same(1, 2)

matches := [r | some rule in input.rules; r := match(rule.pattern, rule.strategy, input.value)]

stable if pick(1000) == pick(1000)

ok_all if every_ok([1, 2])
`;

type Prepared = { eval: (o: { input?: Value; data: Value }) => { expressions: { value: Value }[] }[] };

describe('leaf functions', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const leaf = (js.program as unknown as { leaf: boolean[] }).leaf;
  const isLeaf = (name: string) => leaf[js.ir.groups.findIndex((g) => g.path.join('.') === `p.${name}`)];

  it('are the functions without iteration that call only such functions', () => {
    for (const name of ['inc', 'same', 'match', 'both', 'pick']) expect(isLeaf(name), name).toBe(true);
    for (const name of ['loops', 'calls_loop', 'every_ok', 'results']) expect(isLeaf(name), name).toBe(false);
  });

  const input = fromJS({
    value: 'abc',
    rules: [
      { pattern: 'abc', strategy: 'string' },
      { pattern: 'a.c', strategy: 're2' },
      { pattern: 'abc', strategy: 'string' },
      { pattern: 'x', strategy: 'string' },
    ],
  });
  const data = fromJS({});
  const rows = (p: Prepared) => p.eval({ input, data }).map((r) => toJS(r.expressions[0]!.value));

  for (const rule of ['results', 'matches', 'stable', 'ok_all', 'not_same']) {
    it(`${rule}: the interpreter's result`, () => {
      const q = `data.p.${rule}`;
      expect(rows(js.prepare(q))).toEqual(rows(prepareInterpreted(js, q)));
    });
  }

  it('give the expected values', () => {
    expect(rows(js.prepare('data.p.results'))).toEqual([[2, 2, 3, [4, 4], [2, 3], 3, true]]);
    expect(rows(js.prepare('data.p.matches'))).toEqual([[true, true, true]]);
    expect(rows(js.prepare('data.p.stable'))).toEqual([true]);
  });

  it('keep their memo in a policy that prints (a call prints once)', () => {
    const printing = compile([{ file: 'q.rego', text: 'package q\n\nf(x) := y if {\n\tprint("f", x)\n\ty := x + 1\n}\n\nr := [f(1), f(1), f(2)]\n' }]);
    const printed: string[] = [];
    const v = printing.prepareDecision(['q', 'r'])({ data, print: (m) => printed.push(m) });
    expect(toJS(v!)).toEqual([2, 2, 3]);
    expect(printed).toEqual(['f 1', 'f 2']);
  });
});
