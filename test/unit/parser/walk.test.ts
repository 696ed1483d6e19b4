// The AST walkers (compiler/ast/walk.ts): children of every node kind, walk order
// and term-only walks.
import { describe, it, expect } from 'vitest';
import type { Term } from '../../../compiler/ast/nodes.js';
import { children, kindOf, walk, walkTerms } from '../../../compiler/ast/walk.js';
import { parseQuery } from '../../../compiler/parser/index.js';
import { mod } from './helpers.js';

describe('walk', () => {
  it('visits every var in a module', () => {
    const m = mod('package p\nf(a) := b if {\n\tb := [c | some c in a]\n\tevery k, v in a { v > k }\n\tnot g(b) with input.x as d\n}');
    const names: string[] = [];
    walkTerms(m, (t) => {
      if (t.kind === 'var') names.push(t.name);
    });
    for (const n of ['f', 'a', 'b', 'c', 'k', 'v', 'g', 'input', 'd', 'gt', 'assign']) expect(names).toContain(n);
  });

  it('lists children in source order and can prune', () => {
    const [e] = parseQuery('x := f(1, [2])');
    const term = (e!.body as { term: Term }).term;
    expect(children(term).map(kindOf)).toEqual(['var', 'var', 'call']);
    const seen: string[] = [];
    let calls = 0;
    walk(e!, (n) => {
      seen.push(kindOf(n));
      if (kindOf(n) === 'call' && ++calls > 1) return false; // prune inside f(…)
      return undefined;
    });
    expect(seen).toEqual(['expr', 'call', 'var', 'var', 'call']);
  });

  it('handles very deep terms without recursion', () => {
    let t = '1';
    for (let i = 0; i < 400; i++) t = `[${t}]`;
    let count = 0;
    walkTerms(parseQuery(`x := ${t}`), () => {
      count++;
    });
    expect(count).toBe(404);
  });
});
