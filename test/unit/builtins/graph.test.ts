// Unit tests for walk, graph.reachable and graph.reachable_paths (graph.ts),
// transcribed from OPA's walkbuiltin and reachable folders, plus deep and
// wide inputs and the depth bound.
import { describe, it, expect } from 'vitest';
import { builtins, MAX_DEPTH } from '../../../runtime/builtins/graph.js';
import { RObject, RSet, parseJSON, toJSONText, type Value } from '../../../runtime/value/index.js';
import { variadicCallerFor, builtinErrors } from './helpers.js';

const call = variadicCallerFor(builtins);
const json = (name: string, ...args: Value[]): string => toJSONText(call(name, ...args)!);
const err = builtinErrors(call);
const j = (s: string): Value => parseJSON(s);
const S = (...xs: Value[]): RSet => RSet.of(xs);
/** A graph whose edge lists are sets. */
const G = (edges: Record<string, string[]>): RObject => RObject.fromEntries(Object.entries(edges).map(([k, v]) => [k, S(...v)]));

describe('walk', () => {
  it('is declared as a relation', () => {
    expect(builtins.find((b) => b.decl.name === 'walk')!.decl.relation).toBe(true);
  });
  it('scalars yield one pair (walkbuiltin/scalar)', () => {
    expect(json('walk', 1)).toBe('[[[],1]]');
    expect(json('walk', '')).toBe('[[[],""]]');
  });
  it('arrays, objects and sets, pre-order', () => {
    expect(json('walk', [1, 2, 3])).toBe('[[[],[1,2,3]],[[0],1],[[1],2],[[2],3]]');
    expect(json('walk', j('{"a": {"b": 1}, "c": 2}'))).toBe('[[[],{"a":{"b":1},"c":2}],[["a"],{"b":1}],[["a","b"],1],[["c"],2]]');
    expect(json('walk', S(3, 1))).toBe('[[[],[1,3]],[[1],1],[[3],3]]');
    expect(json('walk', [])).toBe('[[[],[]]]');
  });
  it('partially ground path pattern (walkbuiltin)', () => {
    const q = j('{"a": [{"b": {"foo": 1, "bar": 2}}, {"b": {"baz": 3, "qux": 4}}]}');
    const pairs = call('walk', q) as Value[][];
    const hits = pairs
      .filter(([p]) => (p as Value[]).length === 4 && (p as Value[])[0] === 'a' && (p as Value[])[2] === 'b')
      .map(([p, v]) => [(p as Value[])[1]!, (p as Value[])[3]!, v!]);
    expect(toJSONText(hits)).toBe('[[0,"bar",2],[0,"foo",1],[1,"baz",3],[1,"qux",4]]');
  });
  it('paths are independent arrays (issue 7656)', () => {
    const x = j('{"a": [{"b": [{"c": [{"aa": "AA"}, {"bb": "BB"}, {"cc": "CC"}, {"dd": "DDD"}]}]}]}');
    const pairs = call('walk', x) as Value[][];
    const two = pairs.filter(([, v]) => typeof v === 'string' && v.length === 2).map(([p]) => toJSONText(p!));
    expect(two).toEqual(['["a",0,"b",0,"c",0,"aa"]', '["a",0,"b",0,"c",1,"bb"]', '["a",0,"b",0,"c",2,"cc"]']);
  });
  it('wide and deep documents', () => {
    const wide = Array.from({ length: 50000 }, (_, i) => i);
    expect((call('walk', wide) as Value[]).length).toBe(50001);
    let deep: Value = 0;
    for (let i = 0; i < 1000; i++) deep = [deep];
    const pairs = call('walk', deep) as Value[][];
    expect(pairs.length).toBe(1001);
    expect((pairs[1000]![0] as Value[]).length).toBe(1000);
  });
  it('bounds nesting depth', () => {
    let deep: Value = 0;
    for (let i = 0; i < MAX_DEPTH + 5; i++) deep = [deep];
    expect(err('walk', deep)).toBe(`eval_builtin_error: walk: maximum nesting depth ${MAX_DEPTH} exceeded`);
  });
});

describe('graph.reachable', () => {
  it('components (reachable)', () => {
    const g = G({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [], e: ['f'], f: ['e'], x: ['x'] });
    expect(json('graph.reachable', g, S('b', 'e'))).toBe('["b","d","e","f"]');
    expect(json('graph.reachable', g, ['a'])).toBe('["a","b","c","d"]');
  });
  it('array edges', () => {
    expect(json('graph.reachable', j('{"a": ["b"], "b": ["c"], "c": ["a"], "x": ["x"]}'), ['a'])).toBe('["a","b","c"]');
  });
  it('malformed graphs', () => {
    expect(json('graph.reachable', j('{"a": null}'), ['a'])).toBe('["a"]');
    expect(json('graph.reachable', j('{}'), ['a'])).toBe('[]');
    expect(json('graph.reachable', j('{"a": ["zz"]}'), ['a'])).toBe('["a"]');
    expect(err('graph.reachable', j('{"a": []}'), 'a')).toBe('eval_type_error: graph.reachable: operand 2 must be {array, set} but got string');
    expect(err('graph.reachable', 1, ['a'])).toBe('eval_type_error: graph.reachable: operand 1 must be object but got number');
  });
  it('non-string vertices and long chains', () => {
    const chain = RObject.fromEntries(Array.from({ length: 20000 }, (_, i) => [i, [i + 1]] as [Value, Value]));
    expect((call('graph.reachable', chain, [0]) as RSet).size).toBe(20000);
  });
});

describe('graph.reachable_paths', () => {
  const paths = (g: Value, init: Value) => json('graph.reachable_paths', g, init);
  it('empty and cycles', () => {
    expect(paths(j('{}'), S('a'))).toBe('[]');
    expect(paths(G({ a: ['b'], b: ['c'], c: ['a'] }), S('a'))).toBe('[["a","b","c"]]');
    expect(paths(j('{"a": ["b"], "b": ["c"], "c": ["a"]}'), ['a'])).toBe('[["a","b","c"]]');
  });
  it('components', () => {
    const g = G({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [], e: ['f'], f: ['e'], x: ['x'] });
    expect(paths(g, S('b', 'e'))).toBe('[["b","d"],["e","f"]]');
  });
  it('malformed', () => {
    expect(err('graph.reachable_paths', 1, [1])).toBe('eval_type_error: graph.reachable_paths: operand 1 must be object but got number');
    expect(paths(j('{"a": null}'), ['a'])).toBe('[["a"]]');
    expect(err('graph.reachable_paths', j('{"a": []}'), 'a')).toBe(
      'eval_type_error: graph.reachable_paths: operand 2 must be {array, set} but got string',
    );
  });
  it('multiple paths, shared ancestors, invalid ends', () => {
    expect(paths(j('{"a": ["b", "c"], "b": ["c"], "c": []}'), S('a'))).toBe('[["a","b","c"],["a","c"]]');
    expect(paths(j('{"1": [], "2": ["1"], "3": ["2"], "4": ["3", "2"], "5": ["4"]}'), ['5'])).toBe(
      '[["5","4","2","1"],["5","4","3","2","1"]]',
    );
    expect(paths(j('{"a": ["b"], "b": ["nonexistent"]}'), S('a', 'b'))).toBe('[["a","b"],["b"]]');
  });
  it('issue 1022 cycles', () => {
    const g1 = j(
      '{"one": ["two","five"], "two": ["four"], "three": [""], "four": ["three"], "five": ["seven","six"], "six": ["nine"], "seven": ["eight"], "eight": [""], "nine": [""]}',
    );
    const want1 = '[["one","five","seven","eight"],["one","five","six","nine"],["one","two","four","three"]]';
    expect(paths(g1, S('one'))).toBe(want1);
    const g2 = G({ one: ['two', 'five'], two: ['four'], three: [''], four: ['three'], five: ['seven', 'six'], six: ['nine'], seven: ['eight'], eight: [''], nine: [''] });
    expect(paths(g2, S('one'))).toBe(want1);
    const g3 = j(
      '{"one": ["two","five"], "two": ["four"], "three": [""], "four": ["three"], "five": ["seven","six"], "six": ["nine","seven"], "seven": ["eight"], "eight": ["three"], "nine": [""]}',
    );
    expect(paths(g3, S('one'))).toBe(
      '[["one","five","seven","eight","three"],["one","five","six","nine"],["one","five","six","seven","eight","three"],["one","two","four","three"]]',
    );
  });
});
