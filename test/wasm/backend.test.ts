// The neutral Backend interface (compiler/backend.ts): the four back ends answer the
// same decisions and queries over the same data; the Wasm back end serves its
// entrypoints in the module, follows data writes (path writes and full reloads), and
// hands everything else to the JS back end.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_NAMES, compile, createBackend, type Backend, type WasmBackend } from '../../compiler/index.js';
import { RObject, fromJS, toJS, applyWrite } from '../../runtime/index.js';
import { repoRoot } from '../shared-dir.js';
import { ensureRuntime } from './sdk-host.js';

const rbacDir = join(repoRoot, 'examples/rbac');
const rbacFiles = [{ file: 'rbac.rego', text: readFileSync(join(rbacDir, 'rbac.rego'), 'utf8') }];
const rbacData = fromJS(JSON.parse(readFileSync(join(rbacDir, 'data.json'), 'utf8')));
const inputs = [
  { user: 'alice', action: 'delete', type: 'finance' },
  { user: 'bob', action: 'read', type: 'finance' },
  { user: 'bob', action: 'update', type: 'finance' },
  { user: 'eve', action: 'read', type: 'dog' },
];

describe('createBackend', () => {
  const backends: Backend[] = [];
  beforeAll(async () => {
    ensureRuntime();
    const policy = compile(rbacFiles);
    for (const name of BACKEND_NAMES) {
      const b = await createBackend(name, policy);
      b.setData(rbacData);
      backends.push(b);
    }
  }, 60_000);

  it('every back end gives the same RBAC decisions and query rows', () => {
    expect(backends.map((b) => b.name)).toEqual(['js', 'closures', 'interp', 'wasm']);
    const wasm = backends[3] as WasmBackend;
    expect(wasm.serves(['rbac', 'allow'])).toBe(true);
    expect(wasm.serves(['rbac'])).toBe(true);
    for (const input of inputs) {
      for (const path of [['rbac', 'allow'], ['rbac'], ['rbac', 'user_is_granted']]) {
        const want = toJS(backends[0]!.decide(path, { input: fromJS(input) }) ?? null);
        for (const b of backends.slice(1)) expect(toJS(b.decide(path, { input: fromJS(input) }) ?? null), `${b.name} ${path.join('/')}`).toEqual(want);
        expect(toJS(wasm.decide(path, { inputText: JSON.stringify(input) }) ?? null)).toEqual(want);
      }
      const q = 'x := data.rbac.user_is_granted[_]';
      const rows = (b: Backend): unknown => b.query(q, { input: fromJS(input) }).map((r) => toJS(r.bindings.x!));
      for (const b of backends.slice(1)) expect(rows(b)).toEqual(rows(backends[0]!));
    }
    expect(wasm.stats.fallback).toBe(0);
    expect(wasm.stats.wasm).toBeGreaterThan(0);
  });

  it('the Wasm back end follows data writes (path writes, then a full reload)', () => {
    const js = backends[0]!;
    const wasm = backends[3] as WasmBackend;
    let data = rbacData as RObject;
    const step = (op: 'add' | 'replace' | 'remove', path: string[], value?: unknown): void => {
      const w = { op, path, ...(value === undefined ? {} : { value: fromJS(value) }) };
      data = applyWrite(data, w);
      js.write(w, data);
      wasm.write(w, data);
    };
    const eve = { user: 'eve', action: 'read', type: 'finance' };
    const decide = (b: Backend): unknown => toJS(b.decide(['rbac', 'allow'], { input: fromJS(eve) }) ?? null);
    expect(decide(wasm)).toBe(false);
    step('add', ['user_roles', 'eve'], ['billing']);
    expect(decide(wasm)).toBe(true);
    expect(decide(js)).toBe(true);
    step('remove', ['user_roles', 'eve']);
    expect(decide(wasm)).toBe(false);
    // an array element: the module's copy is reloaded whole
    step('replace', ['role_grants', 'customer', '0'], { action: 'read', type: 'finance' });
    step('add', ['user_roles', 'eve'], ['customer']);
    expect(decide(wasm)).toBe(decide(js));
    expect(decide(wasm)).toBe(true);
    expect(wasm.stats.fallback).toBe(0);
  });

  it('the Wasm back end hands other paths and aborting evaluations to the JS back end', async () => {
    const policy = compile([{ file: 'c.rego', text: 'package c\n\nx := 1 if input.a\nx := 2 if input.b\n\nbig := 1.5 * input.n\n' }]);
    const wasm = (await createBackend('wasm', policy)) as WasmBackend;
    const js = await createBackend('js', policy);
    wasm.setData(new RObject());
    expect(toJS(wasm.decide(['c', 'x'], { input: fromJS({ a: true }) })!)).toBe(1);
    expect(wasm.stats.fallback).toBe(0);
    // a conflict aborts the module; the JS back end raises OPA's error
    expect(() => wasm.decide(['c', 'x'], { input: fromJS({ a: true, b: true }) })).toThrow(/complete rules must not produce multiple outputs/);
    expect(wasm.stats.fallback).toBe(1);
    expect(toJS(wasm.decide(['c', 'big'], { input: fromJS({ n: 3 }) })!)).toEqual(toJS(js.decide(['c', 'big'], { input: fromJS({ n: 3 }) })!));
    expect(wasm.decide(['nothing', 'here'])).toBeUndefined();
    expect(wasm.stats.lastFallback).toBe('no entrypoint nothing/here');
  }, 60_000);
});
