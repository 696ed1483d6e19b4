// `regent capabilities --version <OPA release>` and `check`/`eval --capabilities
// <release>`: each release's document is this build's catalog filtered to the
// builtins, future keywords and features that release had (cli/capabilities-versions.ts),
// and a policy calling a builtin newer than the release fails as OPA fails it
// (`rego_type_error: undefined function <name>`).
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { capabilitiesCommand } from '../../../cli/capabilities.js';
import { builtinSince, capabilitiesForRelease, compareVersions, listOrder, OPA_RELEASES } from '../../../cli/capabilities-versions.js';
import { checkCommand } from '../../../cli/check.js';
import { capabilities } from '../../../runtime/builtins/catalog.js';
import { capture, tempTree } from './helpers.js';

type Doc = { builtins: { name: string }[]; future_keywords: string[]; features: string[]; wasm_abi_versions?: unknown[] };

function release(v: string): Doc {
  const c = capture();
  expect(capabilitiesCommand(['--version', v], c.io)).toBe(0);
  return JSON.parse(c.out) as Doc;
}

const names = (d: Doc): string[] => d.builtins.map((b) => b.name);

const tree = tempTree({
  'new.rego': 'package p\n\nimport future.keywords.in\n\nstamp := time.format(0)\n\nkeys := object.keys({"a": 1})\n',
  'old.rego': 'package p\n\nimport future.keywords.in\n\nn := count([1, 2])\n',
  'template.rego': 'package t\n\ngreeting := $"hello {input.user}"\n',
  'kw.rego': 'package k\n\nimport future.keywords.every\nimport future.keywords.in\n\np { every x in [1] { x == 1 } }\n',
  'v1import.rego': 'package r\n\nimport rego.v1\n\nq if { true }\n',
});
afterAll(() => tree.cleanup());

describe('capabilities of older OPA releases', () => {
  it('lists releases by file name, as opa capabilities does', () => {
    const listed = listOrder();
    expect(listed.indexOf('v0.19.0-rc1')).toBeLessThan(listed.indexOf('v0.19.0'));
    expect(listed.indexOf('v1.11.0')).toBeLessThan(listed.indexOf('v1.5.0'));
    expect([...listed].sort()).toEqual([...OPA_RELEASES].sort());
  });

  it('orders releases, release candidates before their release', () => {
    expect(compareVersions('v0.25.0-rc4', 'v0.25.0')).toBeLessThan(0);
    expect(compareVersions('v0.9.0', 'v0.10.0')).toBeLessThan(0);
    expect(compareVersions('v1.0.0', 'current')).toBeLessThan(0);
    const sorted = [...OPA_RELEASES].sort(compareVersions);
    expect(sorted).toEqual(OPA_RELEASES);
  });

  it('each release lists the builtins it introduced and none newer (facts from OPA builtin metadata)', () => {
    const v47 = names(release('v0.47.0'));
    const v48 = names(release('v0.48.0'));
    expect(v47).toContain('object.keys');
    expect(v47).not.toContain('time.format');
    expect(v48).toContain('time.format');
    expect(names(release('v0.46.3'))).not.toContain('object.keys');
    expect(names(release('v0.17.0'))).not.toContain('bits.and');
    expect(names(release('v0.18.0'))).toContain('bits.and');
    expect(names(release('v0.25.0-rc1'))).not.toContain('hex.encode');
    expect(names(release('v0.25.0-rc2'))).toContain('hex.encode');
    // builtins only grow from release to release, and the current build has them all
    let prev = new Set<string>();
    for (const v of OPA_RELEASES) {
      const now = new Set(names(capabilitiesForRelease(v) as Doc));
      for (const n of prev) expect(now.has(n), `${n} in ${v}`).toBe(true);
      prev = now;
    }
    const current = (capabilities() as Doc).builtins.map((b) => b.name);
    expect(current.length).toBeGreaterThan(prev.size);
    expect(builtinSince('count')).toBe('v0.17.0');
  });

  it('future keywords and features follow the release that added them', () => {
    // empty lists are left out, as in OPA's JSON
    expect(release('v0.33.0').future_keywords).toBeUndefined();
    expect(release('v0.45.0').features).toBeUndefined();
    expect(release('v0.46.0').features).toEqual(['rule_head_ref_string_prefixes']);
    expect(release('v0.34.0').future_keywords).toEqual(['in']);
    expect(release('v0.37.0').future_keywords).toEqual(['every', 'in']);
    expect(release('v0.42.0').future_keywords).toEqual(['contains', 'every', 'if', 'in']);
    expect(release('v0.59.0').features).toEqual(['rule_head_ref_string_prefixes', 'rule_head_refs']);
    expect(release('v0.59.0').wasm_abi_versions).toBeUndefined();
    const v1 = release('v1.0.0');
    expect(v1.features).toEqual(['rule_head_ref_string_prefixes', 'rule_head_refs', 'rego_v1', 'rego_v1_import']);
    expect(v1.wasm_abi_versions).toEqual([{ version: 1, minor_version: 1 }, { version: 1, minor_version: 2 }]);
    expect(Object.keys(v1)).toEqual(['builtins', 'future_keywords', 'wasm_abi_versions', 'features']);
    // Checked against OPA's files: after v1.0.0 no future_keywords key, features sorted and added over time.
    expect(release('v1.5.0').future_keywords).toBeUndefined();
    expect(release('v1.5.0').features).toEqual(['rego_v1']);
    expect(release('v1.8.0').features).toEqual(['keywords_in_refs', 'rego_v1']);
    expect(release('v1.11.0').features).toEqual(['keywords_in_refs', 'rego_v1']);
    expect(release('v1.12.2').features).toEqual(['keywords_in_refs', 'rego_v1', 'template_strings']);
    expect(Object.keys(release('v1.16.1'))).toEqual(['builtins', 'wasm_abi_versions', 'features']);
  });

  it('marks builtins deprecated only from v1.11.0 on, as OPA\'s files', () => {
    const any = (v: string) => (release(v).builtins as { name: string; deprecated?: boolean }[]).find((b) => b.name === 'any')!;
    for (const v of ['v0.59.0', 'v1.0.0', 'v1.5.0', 'v1.8.0']) expect(any(v)).not.toHaveProperty('deprecated');
    for (const v of ['v1.11.0', 'v1.16.1']) expect(any(v).deprecated).toBe(true);
  });

  it('check --capabilities <release> refuses string templates before v1.12.2 (the template_strings feature)', async () => {
    const file = join(tree.dir, 'template.rego');
    const old = capture();
    expect(await checkCommand(['--capabilities', 'v1.11.0', file], old.io)).toBe(1);
    expect(old.err).toBe(`1 error occurred: ${file}:3: rego_parse_error: template strings are not supported by current capabilities\n\tgreeting := $"hello {input.user}"\n\t            ^\n`);
    expect(await checkCommand(['--capabilities', 'v1.12.2', file], capture().io)).toBe(0);
  });

  it('check --v0-compatible --capabilities <release> limits future keyword imports and rego.v1 as OPA\'s parser', async () => {
    const kw = join(tree.dir, 'kw.rego');
    const r = capture();
    expect(await checkCommand(['--v0-compatible', '--capabilities', 'v0.34.0', kw], r.io)).toBe(1);
    expect(r.err).toBe(`1 error occurred: ${kw}:3: rego_parse_error: unexpected keyword, must be one of [in]\n\timport future.keywords.every\n\t       ^\n`);
    expect(await checkCommand(['--v0-compatible', '--capabilities', 'v0.37.0', kw], capture().io)).toBe(0);
    const v1 = join(tree.dir, 'v1import.rego');
    const old = capture();
    expect(await checkCommand(['--v0-compatible', '--capabilities', 'v0.59.0', v1], old.io)).toBe(1);
    expect(old.err).toBe(`1 error occurred: ${v1}:3: rego_parse_error: invalid import, \`rego.v1\` is not supported by current capabilities\n\timport rego.v1\n\t       ^\n`);
    expect(await checkCommand(['--v0-compatible', '--capabilities', 'v1.0.0', v1], capture().io)).toBe(0);
  });

  it('check --capabilities <release> rejects builtins newer than the release with OPA text', async () => {
    const file = join(tree.dir, 'new.rego');
    const old = capture();
    expect(await checkCommand(['--v0-compatible', '--capabilities', 'v0.46.0', file], old.io)).toBe(1);
    expect(old.err).toBe(`2 errors occurred:\n${file}:5: rego_type_error: undefined function time.format\n${file}:7: rego_type_error: undefined function object.keys\n`);
    const mid = capture();
    expect(await checkCommand(['--v0-compatible', '--capabilities', 'v0.47.0', file], mid.io)).toBe(1);
    expect(mid.err).toBe(`1 error occurred: ${file}:5: rego_type_error: undefined function time.format\n`);
    const ok = capture();
    expect(await checkCommand(['--v0-compatible', '--capabilities', 'v0.48.0', file], ok.io)).toBe(0);
    // The same files as v1 Rego: a release before v1.0.0 has no rego_v1 feature to parse them with.
    const v1 = capture();
    expect(await checkCommand(['--capabilities', 'v0.48.0', file], v1.io)).toBe(1);
    expect(v1.err).toBe('1 error occurred: rego_parse_error: illegal capabilities: rego_v1 feature required for parsing v1 Rego\n');
    expect(await checkCommand(['--capabilities', 'v1.0.0', file], capture().io)).toBe(0);
    const plain = capture();
    expect(await checkCommand(['--v0-compatible', '--capabilities', '0.34.0', join(tree.dir, 'old.rego')], plain.io)).toBe(0);
    const unknown = capture();
    expect(await checkCommand(['--capabilities', 'v0.16.0', file], unknown.io)).toBe(1);
    // An unknown release is a bad flag value, as opa reports it (capabilitiesFlag.Set).
    expect(unknown.err.split('\n')[0]).toBe('Error: invalid argument "v0.16.0" for "--capabilities" flag: no such file or capabilities version found: v0.16.0');
  });
});
