// regent inspect: OPA's cmd/inspect_test.go cases (TestDoInspect, TestDoInspectPretty,
// TestDoInspectPrettyManifestOnlySingleRoot, TestInspectMultiBundleError,
// TestDoInspectWithAnnotations) with the same bundles; cells compared with OPA's
// expected tables (Regent draws ASCII borders, OPA ≥ 1.x box characters).
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tarEntries } from '../../../runtime/bundles/write.js';
import { inspectCommand } from '../../../cli/inspect.js';
import { truncateFileName } from '../../../cli/inspect-pretty.js';
import { capture, tempTree } from './helpers.js';

async function tarball(dir: string, files: [string, string][]): Promise<string> {
  const p = join(dir, 'bundle.tar.gz');
  writeFileSync(p, gzipSync(await tarEntries(files.map(([path, text]) => ({ path, bytes: Buffer.from(text) })))));
  return p;
}

/** Table cells as OPA's tests list them: one array of trimmed cells per row. */
function cells(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) => l.slice(1, -1).split('|').map((c) => c.trim()));
}

describe('regent inspect', () => {
  it('prints the Info JSON of a tarball (TestDoInspect)', async () => {
    const t = tempTree({});
    try {
      const p = await tarball(t.dir, [
        ['/.manifest', '{"revision": "rev", "roots": ["foo", "bar", "fuz", "baz", "a", "x"]}'],
        ['/data.json', '{"x": {"y": true}, "a": {"b": {"z": true}}}'],
        ['/example/foo.rego', 'package foo'],
      ]);
      const c = capture();
      expect(await inspectCommand(['--format', 'json', p], c.io)).toBe(0);
      expect(JSON.parse(c.out)).toEqual({
        capabilities: { features: ['rego_v1'] },
        manifest: { revision: 'rev', roots: ['foo', 'bar', 'fuz', 'baz', 'a', 'x'] },
        signatures_config: {},
        namespaces: { data: ['/data.json'], 'data.foo': ['/example/foo.rego'] },
      });
    } finally {
      t.cleanup();
    }
  });

  it('prints the MANIFEST and NAMESPACES tables (TestDoInspectPretty)', async () => {
    const t = tempTree({});
    try {
      const root = `metadata/${'foobar'.repeat(20)}/features`;
      const manifest = JSON.stringify({
        revision: 'foobar'.repeat(10),
        roots: ['foo', 'bar', 'fuz', 'http', 'a', 'x', root],
        metadata: { hello: 'world'.repeat(100) },
        wasm: [{ entrypoint: 'http/example/authz', module: '/policy.wasm' }, { entrypoint: 'http/example/foo/allow', module: '/example/policy.wasm' }],
      });
      const p = await tarball(t.dir, [
        ['/.manifest', manifest],
        ['/data.json', '{"x": {"y": true}, "a": {"b": {"z": true}}}'],
        ['/http/example/authz/foo.rego', 'package http.example.authz'],
        ['/http/example/authz/data.json', '{"faz": "baz"}'],
        ['/example/foo.rego', 'package foo'],
        ['/a/b/y/foo.rego', 'package a.b.y'],
        ['/a/xxxxxxxxxxxxxxxxxxxxxx/yyyyyyyyyyyyyyyyyyyy/foo.rego', 'package a.b.y'],
        ['/example/policy.wasm', 'modules-compiled-as-wasm-binary'],
        ['/http/example/policy.wasm', 'modules-compiled-as-wasm-binary'],
        ['/policy.wasm', 'modules-compiled-as-wasm-binary'],
      ]);
      const c = capture();
      expect(await inspectCommand([p], c.io)).toBe(0);
      const [manifestPart, nsPart] = c.out.split('NAMESPACES:\n');
      expect(manifestPart!.startsWith('MANIFEST:\n')).toBe(true);
      expect(cells(manifestPart!)).toEqual([
        ['FIELD', 'VALUE'],
        ['Revision', 'foobarfoobarfoobarfoobarfoobarfoobarfoobarfooba...'],
        ['Roots', 'a'], ['', 'bar'], ['', 'foo'], ['', 'fuz'], ['', 'http'],
        ['', 'metadata/...oobarfoobarfoobarfoobarfoobar/features'],
        ['', 'x'],
        ['Metadata', '{"hello":"worldworldworldworldworldworldworldwo...'],
      ]);
      expect(cells(nsPart!)).toEqual([
        ['NAMESPACE', 'FILE'],
        ['data', '/data.json'],
        ['data.a.b.y', '/a/b/y/foo.rego'],
        ['', '/a/...xxxxxxxxxxxxxx/yyyyyyyyyyyyyyyyyyyy/foo.rego'],
        ['data.foo', '/example/foo.rego'],
        ['data.http.example.authz', '/http/example/authz/foo.rego'],
        ['', '/http/example/authz/data.json'],
        ['', '/policy.wasm'],
        ['data.http.example.foo.allow', '/example/policy.wasm'],
      ]);
      // Column widths as OPA's table: `│  FIELD   │                       VALUE                        │`.
      expect(manifestPart!.split('\n')[2]).toBe('|  FIELD   |                       VALUE                        |');
    } finally {
      t.cleanup();
    }
  });

  it('prints a single root and metadata only (TestDoInspectPrettyManifestOnlySingleRoot)', async () => {
    const t = tempTree({});
    try {
      const p = await tarball(t.dir, [['/.manifest', JSON.stringify({ roots: [`metadata/${'foobar'.repeat(6)}/features`], metadata: { hello: 'world' } })]]);
      const c = capture();
      expect(await inspectCommand([p], c.io)).toBe(0);
      expect(cells(c.out)).toEqual([
        ['FIELD', 'VALUE'],
        ['Roots', 'metadata/...oobarfoobarfoobarfoobarfoobar/features'],
        ['Metadata', '{"hello":"world"}'],
      ]);
      expect(c.out).not.toContain('NAMESPACES');
    } finally {
      t.cleanup();
    }
  });

  it('lists policy.wasm modules with their manifest entrypoints (wasm_modules)', async () => {
    const t = tempTree({});
    try {
      const manifest = JSON.stringify({ wasm: [{ entrypoint: 'http/example/authz', module: '/policy.wasm' }] });
      const p = await tarball(t.dir, [['/.manifest', manifest], ['/policy.wasm', 'wasm'], ['/x/policy.wasm', 'wasm'], ['/.signatures.json', '{"signatures": ["a.b.c"], "extra": 1}']]);
      const c = capture();
      expect(await inspectCommand(['-f', 'json', p], c.io)).toBe(0);
      const doc = JSON.parse(c.out);
      expect(doc.wasm_modules).toEqual([
        { entrypoints: ['data.http.example.authz'], path: '/policy.wasm', url: '/policy.wasm' },
        { entrypoints: null, path: '/x/policy.wasm', url: '/x/policy.wasm' },
      ]);
      expect(doc.namespaces).toEqual({ 'data.http.example.authz': ['/policy.wasm'] });
      expect(doc.signatures_config).toEqual({ signatures: ['a.b.c'] });
    } finally {
      t.cleanup();
    }
  });

  it('wants exactly one path (TestInspectMultiBundleError)', async () => {
    const c = capture();
    expect(await inspectCommand(['foo', 'bar'], c.io)).toBe(1);
    expect(c.err).toBe('Error: specify exactly one OPA bundle or path\n');
  });

  it('shortens long file names as OPA does', () => {
    expect(truncateFileName('/a/b')).toBe('/a/b');
    expect(truncateFileName(`metadata/${'foobar'.repeat(20)}/features`)).toHaveLength(50);
  });
});

const ANNOTATED = `# METADATA
# title: pkg-title
# description: pkg-descr
# organizations:
# - pkg-org
# related_resources:
# - https://pkg
# - ref: https://pkg
#   description: rr-pkg-note
# authors:
# - pkg-author
# schemas:
# - input: {"type": "boolean"}
# custom:
#  pkg: pkg-custom
package test

# METADATA
# scope: document
# title: doc-title
# description: doc-descr

# METADATA
# title: rule-title
# authors:
# - rule-author
# schemas:
# - input: {"type": "string"}
p = 1
`;

describe('regent inspect -a (TestDoInspectWithAnnotations)', () => {
  it('lists the annotations as OPA prints them', async () => {
    const t = tempTree({ 'x.rego': ANNOTATED });
    try {
      const c = capture();
      expect(await inspectCommand(['-a', t.dir], c.io)).toBe(0);
      const text = c.out.slice(c.out.indexOf('ANNOTATIONS'));
      expect(text).toBe(`ANNOTATIONS:
pkg-title
=========

pkg-descr

Package:  test
Location: ${t.dir}/x.rego:16
Scope: package

Organizations:
 pkg-org

Authors:
 pkg-author

Schemas:
 input: {"type":"boolean"}

Related Resources:
 https://pkg
 https://pkg rr-pkg-note

Custom:
 pkg: "pkg-custom"

doc-title
=========

doc-descr

Package:  test
Rule:     p
Location: ${t.dir}/x.rego:29
Scope: document

rule-title
==========

Package:  test
Rule:     p
Location: ${t.dir}/x.rego:29
Scope: rule

Authors:
 rule-author

Schemas:
 input: {"type":"string"}

`);
    } finally {
      t.cleanup();
    }
  });

  it('gives the annotations JSON with paths and locations', async () => {
    const t = tempTree({ 'x.rego': ANNOTATED });
    try {
      const c = capture();
      expect(await inspectCommand(['-a', '--format', 'json', t.dir], c.io)).toBe(0);
      const doc = JSON.parse(c.out);
      expect(Object.keys(doc)).toEqual(['manifest', 'signatures_config', 'namespaces', 'annotations', 'capabilities']);
      expect(doc.manifest).toEqual({ revision: '', roots: [''] });
      expect(doc.namespaces).toEqual({ 'data.test': [`${t.dir}/x.rego`] });
      expect(doc.annotations[0]).toEqual({
        annotations: {
          authors: [{ name: 'pkg-author' }],
          custom: { pkg: 'pkg-custom' },
          description: 'pkg-descr',
          organizations: ['pkg-org'],
          related_resources: [{ ref: 'https://pkg' }, { description: 'rr-pkg-note', ref: 'https://pkg' }],
          schemas: [{ path: [{ type: 'var', value: 'input' }], definition: { type: 'boolean' } }],
          scope: 'package',
          title: 'pkg-title',
        },
        location: { file: `${t.dir}/x.rego`, row: 16, col: 1 },
        path: [{ type: 'var', value: 'data' }, { type: 'string', value: 'test' }],
      });
      expect(doc.annotations.map((a: { annotations: { scope: string } }) => a.annotations.scope)).toEqual(['package', 'document', 'rule']);
      expect(doc.annotations[2].path).toEqual([{ type: 'var', value: 'data' }, { type: 'string', value: 'test' }, { type: 'string', value: 'p' }]);
    } finally {
      t.cleanup();
    }
  });
});
