// `regent build -O=1|2 -e …` (rego target): the bundle layout of `opa build -O`
// (/optimized/<package>.rego support modules, pruned original rules, the `partial`
// root, revision reset) and the same decisions as the unoptimized bundle, over a
// grid of inputs, for every entrypoint.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCommand } from '../../../cli/build.js';
import { compile } from '../../../compiler/index.js';
import { readBundle, type Bundle } from '../../../runtime/bundles/index.js';
import { fromJS, toJS } from '../../../runtime/index.js';
import { capture, tempTree } from './helpers.js';

const POLICY = `package authz

import rego.v1

# METADATA
# entrypoint: true
allow if {
	is_admin
}

allow if {
	some grant in data.grants[input.user]
	grant == input.action
	not blocked
}

# METADATA
# entrypoint: true
reasons contains "blocked" if blocked
reasons contains "unknown user" if not data.grants[input.user]

blocked if input.action in data.frozen

is_admin if input.user == "root"

kept := "not reached from an entrypoint"
`;

const DATA = JSON.stringify({ grants: { alice: ['read', 'write'], bob: ['read'] }, frozen: ['write'] });

const tree = tempTree({ 'src/authz.rego': POLICY, 'src/data.json': DATA });
afterAll(() => tree.cleanup());

async function build(name: string, ...flags: string[]): Promise<{ code: number; err: string; bundle?: Bundle }> {
  const c = capture();
  const out = join(tree.dir, name);
  const code = await buildCommand([...flags, '-o', out, '-r', 'r1', join(tree.dir, 'src')], c.io);
  if (code !== 0) return { code, err: c.err };
  return { code, err: c.err, bundle: await readBundle(readFileSync(out), { skipVerify: true }) };
}

/** The decision at `path` for each input, from a bundle's modules and data. */
function decisions(b: Bundle, path: string[], inputs: unknown[]): unknown[] {
  const policy = compile(b.modules.map((m) => ({ file: m.path, text: m.text })));
  const decide = policy.prepareDecision(path);
  return inputs.map((input) => {
    const v = decide({ input: fromJS(input), data: b.data });
    return v === undefined ? 'undefined' : toJS(v);
  });
}

const INPUTS = ['root', 'alice', 'bob', 'eve'].flatMap((user) => ['read', 'write', 'delete'].map((action) => ({ user, action })));

describe('regent build -O', () => {
  it('level 2 inlines the entrypoints into /optimized modules and prunes them from the source', async () => {
    const { code, bundle } = await build('o2.tar.gz', '-O=2', '-e', 'authz/allow');
    expect(code).toBe(0);
    const paths = bundle!.modules.map((m) => m.path.replace(tree.dir, '<dir>'));
    // partial.rego: the support rule of the negation `not blocked` (data.partial.__not…)
    expect(paths).toEqual(['/optimized/authz.1.rego', '/optimized/authz.rego', '/optimized/partial.rego', '<dir>/src/authz.rego']);
    // "" already covers `partial`, so the roots stay as they were (OPA's AddRoot)
    expect(bundle!.manifest.roots).toEqual(['']);
    expect(bundle!.manifest.revision).toBe('r1');
    const original = bundle!.modules.find((m) => m.path.endsWith('/src/authz.rego'))!.text;
    expect(original).not.toMatch(/^allow/m);
    expect(original).not.toMatch(/^reasons/m);
    expect(original).toContain('kept := "not reached from an entrypoint"');
    expect(original).not.toContain('METADATA');
    const allow = bundle!.modules.find((m) => m.path === '/optimized/authz.rego')!.text;
    expect(allow).toMatch(/^allow := __result__ if \{/m);
    expect(allow).toContain('input.user = "root"');
  });

  it('level 1 writes the rules the entrypoints reach as support rules at their own paths', async () => {
    const { code, bundle } = await build('o1.tar.gz', '-O=1', '-e', 'data.authz.allow');
    expect(code).toBe(0);
    const opt = bundle!.modules.find((m) => m.path === '/optimized/authz.rego')!.text;
    expect(opt).toMatch(/^allow if \{/m);
    expect(opt).toMatch(/^is_admin if \{/m);
    expect(opt).toContain('data.authz.is_admin');
    const original = bundle!.modules.find((m) => m.path.endsWith('/src/authz.rego'))!.text;
    expect(original).not.toMatch(/^is_admin/m);
  });

  it('optimized bundles answer every entrypoint decision as the plain bundle', async () => {
    const plain = (await build('plain.tar.gz')).bundle!;
    expect(plain.modules.map((m) => m.path.endsWith('/src/authz.rego'))).toEqual([true]);
    for (const level of ['1', '2']) {
      const { bundle } = await build(`eq${level}.tar.gz`, `-O=${level}`, '-e', 'authz/allow');
      for (const path of [['authz', 'allow'], ['authz', 'reasons']]) {
        const want = decisions(plain, path, INPUTS);
        expect(want.filter((v) => v === true).length + want.filter((v) => Array.isArray(v) && v.length > 0).length).toBeGreaterThan(0);
        expect(decisions(bundle!, path, INPUTS), `-O=${level} ${path.join('.')}`).toEqual(want);
      }
    }
  });

  it('-t wasm -O=1 optimizes first and compiles every entrypoint (METADATA ones included) to /policy.wasm', async () => {
    const { code, bundle } = await build('w1.tar.gz', '-t', 'wasm', '-O=1', '-e', 'authz/allow');
    expect(code).toBe(0);
    expect(bundle!.modules.map((m) => m.path).filter((p) => p.startsWith('/optimized/'))).toEqual(['/optimized/authz.1.rego', '/optimized/authz.rego']);
    expect(bundle!.manifest.wasm).toEqual([
      { entrypoint: 'authz/allow', module: '/policy.wasm' },
      { entrypoint: 'authz/reasons', module: '/policy.wasm' },
    ]);
    expect(bundle!.wasmModules?.[0]?.path).toBe('/policy.wasm');
  }, 180_000);

  it('without an entrypoint it fails as opa build does', async () => {
    const c = capture();
    const t = tempTree({ 'p.rego': 'package p\n\nallow if input.x\n' });
    try {
      expect(await buildCommand(['-O=1', '-o', join(t.dir, 'b.tar.gz'), join(t.dir, 'p.rego')], c.io)).toBe(1);
      expect(c.err).toBe('error: bundle optimizations require at least one entrypoint\n');
    } finally {
      t.cleanup();
    }
  });

  it('rejects an invalid level', async () => {
    const { code, err } = await build('bad.tar.gz', '-O=x', '-e', 'authz/allow');
    expect(code).toBe(1);
    expect(err).toContain('invalid optimization level "x"');
  });
});
