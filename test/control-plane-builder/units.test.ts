// Unit tests of the builder's small parts: glob semantics (`*` crosses `/`,
// `**/` matches zero directories, excluded directories prune), selectors
// (empty selector, empty list = key must exist, explicit empty exclude), mount
// refs and the root an empty mounted source claims.
import { describe, expect, it } from 'vitest';
import { globMatch, keepFile } from '../../server/control-plane/builder/glob.js';
import { mountRoot, parseMountRef, toMount } from '../../server/control-plane/builder/mounts.js';
import { stackApplies, selectorMatches } from '../../server/control-plane/builder/selector.js';
import { stackPrefix } from '../../server/control-plane/builder/deps.js';

describe('globs', () => {
  it('match like gobwas without separators', () => {
    expect(globMatch('app/*', 'app/x/y.rego')).toBe(true);
    expect(globMatch('*.rego', 'a/b/c.rego')).toBe(true);
    expect(globMatch('**/*.rego', 'top.rego')).toBe(true);
    expect(globMatch('**/*.json', 'a/b.json')).toBe(true);
    expect(globMatch('{a,b}/?.txt', 'b/x.txt')).toBe(true);
    expect(globMatch('[!x]*', 'xyz')).toBe(false);
    expect(globMatch('*.rego', 'a.json')).toBe(false);
  });
  it('prune excluded directories; includes apply to files only', () => {
    expect(keepFile('.hidden/a/b.rego', undefined, ['.hidden'])).toBe(false);
    expect(keepFile('x/a_test.rego', undefined, ['*_test.rego'])).toBe(false);
    expect(keepFile('x/a.rego', ['x/*.rego'], [])).toBe(true);
    expect(keepFile('y/a.rego', ['x/*.rego'], [])).toBe(false);
  });
});

describe('selectors', () => {
  it('match labels', () => {
    expect(selectorMatches({}, {})).toBe(true);
    expect(selectorMatches({ team: [] }, { team: 'x' })).toBe(true);
    expect(selectorMatches({ team: [] }, {})).toBe(false);
    expect(selectorMatches({ env: ['prod', 'stag*'] }, { env: 'staging' })).toBe(true);
    expect(selectorMatches({ env: ['prod'], team: ['a'] }, { env: 'prod', team: 'b' })).toBe(false);
    expect(stackApplies({ selector: {}, exclude_selector: {} }, { a: 'b' })).toBe(false);
    expect(stackApplies({ selector: {} }, { a: 'b' })).toBe(true);
  });
  it('automount prefixes use bracket form for non-identifiers', () => {
    expect(stackPrefix('s1', undefined)).toBe('data.stacks.s1');
    expect(stackPrefix('with-mount', 'data.global')).toBe('data.stacks["with-mount"].global');
  });
});

describe('mount refs', () => {
  it('parse path/prefix refs', () => {
    expect(parseMountRef('')).toEqual([]);
    expect(parseMountRef('data')).toEqual([]);
    expect(parseMountRef('a.b')).toEqual(['a', 'b']);
    expect(parseMountRef('data.x["y-z"]')).toEqual(['x', 'y-z']);
    expect(() => parseMountRef('database.x')).toThrow(/needs to start with "data"/);
  });
  it('derive the root of an empty mounted source', () => {
    expect(mountRoot([toMount('', 'abc')])).toEqual(['abc']);
    expect(mountRoot([toMount('x', 'abc')])).toBeUndefined();
    expect(mountRoot([toMount('', 'a'), toMount('a', '')])).toBeUndefined();
    expect(mountRoot([toMount('', 'a.b'), toMount('a', 'c')])).toEqual(['c', 'b']);
  });
});
