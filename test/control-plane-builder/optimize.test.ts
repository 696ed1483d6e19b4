// The bundle optimizer alone (server/control-plane/builder/optimize.ts, OPA's
// compile/compile.go optimizer): file names of support modules, the `partial` root,
// pruning, errors, and decisions of the optimized modules equal to the original's.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { fromJS, toJS, RObject } from '../../runtime/index.js';
import { OptimizeError, optimizeBundle, optimizationEntrypoints } from '../../server/control-plane/builder/optimize.js';

const opt = (text: string, entrypoints: string[], level: number, roots = ['']) =>
  optimizeBundle({ modules: [{ path: '/src/p.rego', text }], data: new RObject(), roots, regoVersion: 1, entrypoints, level });

function decide(modules: { path: string; text: string }[], path: string[], input: unknown): unknown {
  const v = compile(modules.map((m) => ({ file: m.path, text: m.text }))).prepareDecision(path)({ input: fromJS(input) });
  return v === undefined ? 'undefined' : toJS(v);
}

describe('bundle optimizer', () => {
  it('orders entrypoints as OPA: given ones, then METADATA ones by path, without duplicates', () => {
    expect(optimizationEntrypoints(['b/x'], ['a/z', 'a', 'b/x'])).toEqual(['b/x', 'a', 'a/z']);
  });

  it('adds the partial root unless a root covers it', () => {
    const text = 'package p\n\nallow if input.x == 1\n';
    expect(opt(text, ['p/allow'], 2, ['p']).roots).toEqual(['p', 'partial']);
    expect(opt(text, ['p/allow'], 2, ['']).roots).toEqual(['']);
    expect(opt(text, ['p/allow'], 2, ['p', 'partial']).roots).toEqual(['p', 'partial']);
  });

  it('names support modules by package path, numbering repeats, with a fallback for odd paths', () => {
    const text = 'package p\n\na if input.x == 1\n\nb if input.y == 2\n';
    const out = opt(text, ['p/a', 'p/b'], 2);
    expect(out.modules.map((m) => m.path)).toEqual(['/optimized/p.1.rego', '/optimized/p.rego']);
    const odd = opt('package p["x.y"]\n\na if input.x == 1\n', ['p/x.y/a'], 2);
    expect(odd.modules.map((m) => m.path)).toEqual(['/optimized/partial/0/0.rego']);
  });

  it('drops a source module whose rules were all replaced', () => {
    const out = opt('package p\n\nallow if input.x == 1\n', ['p/allow'], 2);
    expect(out.modules.map((m) => m.path)).toEqual(['/optimized/p.rego']);
  });

  it('fails on a missing entrypoint list and on an entrypoint that is never defined', () => {
    expect(() => opt('package p\n\nallow if input.x\n', [], 1)).toThrow(new OptimizeError('bundle optimizations require at least one entrypoint'));
    expect(() => opt('package p\n\nallow if false\n', ['p/allow'], 2)).toThrow('undefined entrypoint data.p.allow');
  });

  it('keeps decisions: sets, functions, negation, defaults and else', () => {
    const text = `package p

default level := "none"

level := "admin" if input.user == "root"
else := "user" if input.user != ""

tags contains t if {
	some t in input.tags
	not blocked(t)
}

blocked(t) if t in {"x", "y"}

allow if {
	level != "none"
	count(tags) > 0
}
`;
    const src = [{ path: '/src/p.rego', text }];
    const inputs = [{ user: 'root', tags: ['a', 'x'] }, { user: 'bob', tags: ['y'] }, { user: '', tags: [] }, {}];
    for (const level of [1, 2]) {
      const out = opt(text, ['p/allow', 'p/level', 'p/tags'], level);
      for (const path of [['p', 'allow'], ['p', 'level'], ['p', 'tags']]) {
        for (const input of inputs) expect(decide(out.modules, path, input), `-O${level} ${path.join('.')} ${JSON.stringify(input)}`).toEqual(decide(src, path, input));
      }
    }
  });
});
