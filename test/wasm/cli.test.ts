// `regent build -t wasm -e …` and `regent eval -t wasm`, called directly with a
// capturing IO: the bundle holds /policy.wasm and the manifest's wasm entries and loads
// in OPA's SDK; eval through Wasm prints what the JS back end prints.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCommand } from '../../cli/build.js';
import { evalCommand } from '../../cli/eval.js';
import { readBundle } from '../../runtime/bundles/index.js';
import { toJS } from '../../runtime/value/json.js';
import { repoRoot } from '../shared-dir.js';
import { capture, tempTree } from '../unit/cli/helpers.js';
import { ensureRuntime, loadSdkPolicy } from './sdk-host.js';

const rbac = join(repoRoot, 'examples/rbac');
const inputFile = join(repoRoot, 'examples/rbac.input.json');

describe('regent build -t wasm / eval -t wasm', () => {
  let tmp: ReturnType<typeof tempTree>;
  beforeAll(() => {
    ensureRuntime();
    tmp = tempTree({ 'x.txt': '' });
  });
  afterAll(() => tmp.cleanup());

  it('build -t wasm writes /policy.wasm and the manifest wasm entries; the SDK runs it', async () => {
    const out = join(tmp.dir, 'bundle.tar.gz');
    const c = capture();
    expect(await buildCommand(['-t', 'wasm', '-e', 'rbac/allow', '-e', 'rbac', '-o', out, rbac], c.io)).toBe(0);
    expect(c.err).toMatch(/policy\.wasm: \d+ bytes, 2 entrypoint/);
    const b = await readBundle(readFileSync(out));
    expect(b.manifest.wasm).toEqual([{ entrypoint: 'rbac/allow', module: '/policy.wasm' }, { entrypoint: 'rbac', module: '/policy.wasm' }]);
    const wasm = b.wasmModules![0]!.raw;
    const p = await loadSdkPolicy(wasm);
    p.setData(toJS(b.data));
    expect(p.evaluate({ user: 'bob', action: 'update', type: 'finance' }, 'rbac/allow')).toEqual([{ result: true }]);
  });

  it('build -t wasm takes entrypoints from METADATA entrypoint: true', async () => {
    const t = tempTree({ 'p.rego': 'package ann\n\n# METADATA\n# entrypoint: true\nallow if input.x == 1\n\nother := 2\n' });
    try {
      const out = join(t.dir, 'b.tar.gz');
      expect(await buildCommand(['-t', 'wasm', '-o', out, join(t.dir, 'p.rego')], capture().io)).toBe(0);
      const b = await readBundle(readFileSync(out));
      expect(b.manifest.wasm).toEqual([{ entrypoint: 'ann/allow', module: '/policy.wasm' }]);
      expect((await loadSdkPolicy(b.wasmModules![0]!.raw)).evaluate({ x: 1 })).toEqual([{ result: true }]);
    } finally {
      t.cleanup();
    }
  });

  it('build -t wasm without -e is an error', async () => {
    const c = capture();
    expect(await buildCommand(['-t', 'wasm', '-o', join(tmp.dir, 'x.tar.gz'), rbac], c.io)).toBe(1);
    expect(c.err).toContain('entrypoints');
  });

  it('eval -t wasm prints what the JS back end prints', async () => {
    for (const q of ['data.rbac.allow', 'data.rbac', 'data.user_roles']) {
      const a = capture();
      const b = capture();
      expect(await evalCommand(['-t', 'wasm', '-d', rbac, '-i', inputFile, q], a.io)).toBe(0);
      expect(await evalCommand(['-d', rbac, '-i', inputFile, q], b.io)).toBe(0);
      expect(a.out).toBe(b.out);
    }
  });

  it('eval -t wasm --explain warns as opa eval does and evaluates without a trace', async () => {
    const c = capture();
    expect(await evalCommand(['-t', 'wasm', '--explain', 'full', '-f', 'raw', '-d', rbac, '-i', inputFile, 'data.rbac.allow'], c.io)).toBe(0);
    expect(c.err).toBe('warning: explain mode "full" is not supported with wasm target\n');
    expect(c.out).toMatch(/^(true|false)\n$/);
  });
});
