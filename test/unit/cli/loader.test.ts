// Tests of policy/data loading for -d and -b: directory-relative data paths, deep
// merging, conflicts, YAML, prefixes, bundles and .rego discovery.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { LoadError, findRegoFiles, loadPaths, mergeAt, splitPrefix } from '../../../cli/loader.js';
import { RObject, fromJS, toJS } from '../../../runtime/value/index.js';
import { tempTree } from './helpers.js';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function tree(files: Record<string, string>): string {
  const t = tempTree(files);
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('loadPaths', () => {
  it('puts data files at the path of their directory and collects modules', () => {
    const dir = tree({
      'policy.rego': 'package x\np := 1\n',
      'data.json': '{"top": true}',
      'a/b/data.json': '{"c": 1}',
      'a/b/more.yaml': 'd: [1, 2]\n',
      'a/other.yml': 'e: hello\n',
      'lib/util.rego': 'package lib\n',
      'README.md': '# ignored',
      '.hidden/data.json': '{"secret": 1}',
    });
    const loaded = loadPaths([dir]);
    expect(loaded.modules.map((m) => m.file)).toEqual([join(dir, 'lib', 'util.rego'), join(dir, 'policy.rego')]);
    expect(loaded.modules[1]!.text).toBe('package x\np := 1\n');
    expect(toJS(loaded.data)).toEqual({ top: true, a: { b: { c: 1, d: [1, 2] }, e: 'hello' } });
  });

  it('loads a data file named directly at the root, or under a prefix', () => {
    const dir = tree({ 'x/data.json': '{"k": "v"}', 'y.yaml': 'n: 1' });
    expect(toJS(loadPaths([join(dir, 'x', 'data.json')]).data)).toEqual({ k: 'v' });
    expect(toJS(loadPaths([`servers.prod:${join(dir, 'y.yaml')}`]).data)).toEqual({ servers: { prod: { n: 1 } } });
  });

  it('merges objects across -d arguments and keeps big numbers exact', () => {
    const one = tree({ 'a/data.json': '{"x": {"p": 1}}' });
    const two = tree({ 'a/data.json': '{"x": {"q": 12345678901234567890}}' });
    const loaded = loadPaths([one, two]);
    const a = loaded.data.get('a') as RObject;
    const x = a.get('x') as RObject;
    expect(x.get('p')).toBe(1);
    expect(String(x.get('q'))).toBe('12345678901234567890');
  });

  it('reports conflicting values and missing paths as LoadErrors', () => {
    const one = tree({ 'data.json': '{"x": 1}' });
    const two = tree({ 'data.json': '{"x": 2}' });
    expect(() => loadPaths([one, two])).toThrow(/merge error/);
    expect(() => loadPaths([join(one, 'nope')])).toThrow(LoadError);
    expect(() => loadPaths([join(one, 'nope')])).toThrow(/no such file or directory/);
    const bad = tree({ 'data.json': '{"x": ' });
    expect(() => loadPaths([bad])).toThrow(LoadError);
  });

  it('reads bundles: only data.json/data.yaml count as data, .manifest is read', () => {
    const dir = tree({
      '.manifest': '{"revision": "r1", "roots": ["app"], "rego_version": 0}',
      'app/data.json': '{"users": ["alice"]}',
      'app/extra.json': '{"ignored": true}',
      'app/policy.rego': 'package app\n',
    });
    const loaded = loadPaths([], [dir]);
    expect(toJS(loaded.data)).toEqual({ app: { users: ['alice'] } });
    expect(loaded.modules.map((m) => m.file)).toEqual([join(dir, 'app', 'policy.rego')]);
    expect(toJS(loaded.manifests[dir] as RObject)).toEqual({ revision: 'r1', roots: ['app'], rego_version: 0 });
    expect(loaded.v0).toBe(true);
  });
});

describe('helpers', () => {
  it('mergeAt deep-merges and refuses non-object roots', () => {
    const target = new RObject();
    mergeAt(target, ['a'], fromJS({ b: 1 }), 'one');
    mergeAt(target, ['a'], fromJS({ c: 2 }), 'two');
    mergeAt(target, [], fromJS({ d: 3 }), 'three');
    mergeAt(target, ['a', 'b'], 1, 'same value is fine');
    expect(toJS(target)).toEqual({ a: { b: 1, c: 2 }, d: 3 });
    expect(() => mergeAt(target, [], 5, 'f.json')).toThrow('f.json: root value must be object');
  });

  it('splitPrefix only splits a dotted-name prefix', () => {
    expect(splitPrefix('a.b:file.json')).toEqual({ prefix: ['a', 'b'], path: 'file.json' });
    expect(splitPrefix('file.json')).toEqual({ prefix: [], path: 'file.json' });
    expect(splitPrefix('C:\\x\\data.json')).toEqual({ prefix: [], path: 'C:\\x\\data.json' });
  });

  it('findRegoFiles walks directories and keeps named files', () => {
    const dir = tree({ 'a.rego': '', 'sub/b.rego': '', 'sub/c.json': '{}' });
    expect(findRegoFiles([dir])).toEqual([join(dir, 'a.rego'), join(dir, 'sub', 'b.rego')]);
    expect(() => findRegoFiles([join(dir, 'missing')])).toThrow(/no such file/);
    expect(findRegoFiles([dir], ['sub'])).toEqual([join(dir, 'a.rego')]);
    expect(findRegoFiles([dir], ['?.rego'])).toEqual([]);
    expect(findRegoFiles([dir], ['*_test.rego'])).toHaveLength(2);
  });
});
