// `walk` shaped by its output pattern (compiler/ir/walk-shape.ts, runtime/builtins/
// graph.ts shapedWalk; OPA's evalWalk: walkNoPath for `[_, v]`, the output path as a
// filter): each shaped call must give what the same walk gives when its output is a
// plain variable unified afterwards, on the generated-JS back end, the closures and the
// reference interpreter: no paths, constant keys (objects, arrays, set members, a key
// the node lacks), keys of any value, mixed, and prefixes longer than the document.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { walkShape } from '../../compiler/ir/walk-shape.js';
import { fromJS, toJS } from '../../runtime/index.js';

const SHAPES = [
  '[_, v]',
  '[["a"], v]',
  '[["a", k], v]',
  '[[k], v]',
  '[[k1, k2], v]',
  '[["a", "b", 1], v]',
  '[["s", "x"], v]',
  '[["missing", k], v]',
  '[[0, k], v]',
  '[["a", k, 5, "deep", "er"], v]',
];

const policy = () =>
  'package w\n\n' +
  SHAPES.map(
    (shape, i) =>
      `shaped_${i} := [[${vars(shape)}] | walk(input, ${shape})]\n\nplain_${i} := [[${vars(shape)}] | walk(input, pair); ${shape} = pair]\n`,
  ).join('\n');

/** The shape's variables, as the comprehension's head. */
function vars(shape: string): string {
  return [...new Set(shape.match(/\b(k1|k2|k|v)\b/g) ?? [])].join(', ');
}

const INPUTS = [
  { a: { b: [1, 2, { c: 3 }], d: 'x' }, s: ['x', 'y'], z: [[1], { a: 2 }] },
  [{ a: 1 }, [2, 3], 'a'],
  'scalar',
  { a: [] },
];

describe('walk shaped by its output pattern', () => {
  const text = policy();
  const js = compile([{ file: 'w.rego', text }]);
  const closures = compile([{ file: 'w.rego', text }], { backend: 'closures' });
  const value = (p: typeof js, q: string, input: unknown) => JSON.stringify(p.prepare(q).eval({ input: fromJS(input) }).map((r) => toJS(r.expressions[0]!.value)));
  const interp = (q: string, input: unknown) => JSON.stringify(prepareInterpreted(js, q).eval({ input: fromJS(input) }).map((r) => toJS(r.expressions[0]!.value)));

  it('reads the shape from the output pattern, and none from a variable', () => {
    const shapes = js.ir.groups
      .filter((g) => g.path[1]!.startsWith('shaped_') || g.path[1]!.startsWith('plain_'))
      .map((g) => {
        let found: unknown = 'none';
        JSON.stringify(g.defs[0], (_k, n) => {
          if (n && n.k === 'relation') found = walkShape(n) ?? 'none';
          return n;
        });
        return [g.path[1], found];
      });
    const byName = Object.fromEntries(shapes);
    expect(byName.shaped_0).toEqual({ paths: false });
    expect(byName.shaped_2).toEqual({ prefix: ['a', undefined] });
    expect(byName.shaped_8).toEqual({ prefix: [0, undefined] });
    expect(byName.shaped_5).toEqual({ prefix: ['a', 'b', 1] }); // a constant path, planned as one value
    expect(byName.plain_2).toBe('none');
  });

  for (const [n, input] of INPUTS.entries()) {
    for (let i = 0; i < SHAPES.length; i++) {
      it(`${SHAPES[i]} agrees with the unshaped walk (input #${n})`, () => {
        const want = value(js, `data.w.plain_${i}`, input);
        expect(value(js, `data.w.shaped_${i}`, input)).toBe(want);
        expect(value(closures, `data.w.shaped_${i}`, input)).toBe(want);
        expect(interp(`data.w.shaped_${i}`, input)).toBe(want);
      });
    }
  }

  it('finds set members by key, and nothing under a key the node lacks', () => {
    const input = { s: ['x', 'y'] };
    const set = compile([{ file: 's.rego', text: 'package s\n\nr := [v | walk({"s": {"x", "y"}}, [["s", "x"], v])]\n\nnone := [v | walk({"s": {"x"}}, [["s", "q"], v])]\n' }]);
    expect(value(set, 'data.s.r', input)).toBe('[["x"]]');
    expect(value(set, 'data.s.none', input)).toBe('[[]]');
  });
});
