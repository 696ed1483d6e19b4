// Regent-built policy.wasm files loaded by OPA's official JavaScript SDK
// (@open-policy-agent/opa-wasm): the RBAC example with data via setData, inputs,
// multiple entrypoints, repeated evaluate calls on one instance, a large data
// document, a builtin supplied by the host as a custom builtin, malformed input, and
// bounded memory over many evaluations (Regent's host reports the heap high-water).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compile, compileWasm, WasmUnsupportedError } from '../../compiler/index.js';
import { fromJS, toJS } from '../../runtime/value/json.js';
import { WasmPolicy } from '../../runtime/wasm/host.js';
import { repoRoot } from '../shared-dir.js';
import { ensureRuntime, loadSdkPolicy } from './sdk-host.js';

const rbacText = readFileSync(join(repoRoot, 'examples/rbac/rbac.rego'), 'utf8');
const rbacData = JSON.parse(readFileSync(join(repoRoot, 'examples/rbac/data.json'), 'utf8')) as Record<string, unknown>;
const inputs = [
  { user: 'alice', action: 'delete', type: 'anything' },
  { user: 'bob', action: 'update', type: 'finance' },
  { user: 'bob', action: 'delete', type: 'finance' },
  { user: 'eve', action: 'read', type: 'dog' },
  { user: 'eve', action: 'update', type: 'dog' },
  { user: 'mallory', action: 'read', type: 'dog' },
  {},
];

function jsDecision(text: string, path: string[], data: unknown, input: unknown): unknown[] {
  const v = compile([{ file: 'p.rego', text }]).prepareDecision(path)({ data: fromJS(data), input: input === undefined ? undefined : fromJS(input) });
  return v === undefined ? [] : [{ result: toJS(v) }];
}

describe('Regent-built policy.wasm in the official SDK', () => {
  let rbac: Uint8Array;
  beforeAll(async () => {
    ensureRuntime();
    rbac = await compileWasm([{ file: 'rbac.rego', text: rbacText }], ['rbac/allow', 'rbac', 'rbac/user_is_granted']);
  });

  it('exports and imports OPA\'s Wasm ABI 1.3', () => {
    type Desc = { module?: string; name: string };
    const WA = (globalThis as unknown as { WebAssembly: { Module: { new (b: Uint8Array): object; exports(m: object): Desc[]; imports(m: object): Desc[] } } }).WebAssembly;
    const mod = new WA.Module(rbac);
    const exports = WA.Module.exports(mod).map((e) => e.name).sort();
    expect(exports).toEqual([
      'builtins', 'entrypoints', 'eval', 'memory', 'opa_eval', 'opa_eval_ctx_get_result', 'opa_eval_ctx_new',
      'opa_eval_ctx_set_data', 'opa_eval_ctx_set_entrypoint', 'opa_eval_ctx_set_input', 'opa_free', 'opa_heap_blocks_restore',
      'opa_heap_blocks_stash', 'opa_heap_ptr_get', 'opa_heap_ptr_set', 'opa_heap_stash_clear', 'opa_json_dump', 'opa_json_parse',
      'opa_malloc', 'opa_value_add_path', 'opa_value_dump', 'opa_value_free', 'opa_value_parse', 'opa_value_remove_path',
      'opa_wasm_abi_minor_version', 'opa_wasm_abi_version',
    ]);
    // imports are a subset of the ABI's (the optimizer drops opa_builtinN a policy never calls)
    const imports = WA.Module.imports(mod).map((i) => `${i.module}.${i.name}`);
    const abi = ['env.memory', 'env.opa_abort', 'env.opa_println', ...[0, 1, 2, 3, 4].map((n) => `env.opa_builtin${n}`)];
    for (const i of imports) expect(abi).toContain(i);
    expect(imports).toContain('env.memory');
  });

  it('RBAC: every input, every entrypoint, agrees with the JS back end', async () => {
    const p = await loadSdkPolicy(rbac);
    expect(p.entrypoints).toEqual({ 'rbac/allow': 0, rbac: 1, 'rbac/user_is_granted': 2 });
    p.setData(rbacData);
    for (const input of inputs) {
      expect(p.evaluate(input)).toEqual(jsDecision(rbacText, ['rbac', 'allow'], rbacData, input));
      expect(p.evaluate(input, 'rbac')).toEqual(jsDecision(rbacText, ['rbac'], rbacData, input));
      expect(p.evaluate(input, 2)).toEqual(jsDecision(rbacText, ['rbac', 'user_is_granted'], rbacData, input));
    }
  });

  it('repeated evaluate calls on one instance reset the heap', async () => {
    const p = await loadSdkPolicy(rbac);
    p.setData(rbacData);
    const want = inputs.map((input) => jsDecision(rbacText, ['rbac', 'allow'], rbacData, input)[0]);
    for (let i = 0; i < 2000; i++) expect(p.evaluate(inputs[i % inputs.length])[0]).toEqual(want[i % inputs.length]);
  });

  it('setData with a large document (10k users), then new data replaces it', async () => {
    const roles = ['employee', 'billing', 'customer', 'admin'];
    const users: Record<string, string[]> = {};
    for (let i = 0; i < 10_000; i++) users[`user${i}`] = [roles[i % 4]!];
    const big = { ...rbacData, user_roles: users };
    const p = await loadSdkPolicy(rbac);
    p.setData(big);
    for (const u of ['user3', 'user7', 'user9998', 'user1', 'nobody']) {
      const input = { user: u, action: 'update', type: 'finance' };
      expect(p.evaluate(input)).toEqual(jsDecision(rbacText, ['rbac', 'allow'], big, input));
    }
    p.setData(rbacData);
    expect(p.evaluate({ user: 'user3', action: 'x', type: 'y' })).toEqual([{ result: false }]);
  });

  it('a builtin supplied by the host as a custom builtin', async () => {
    // crypto.md5 is neither native nor in the SDK: the host supplies it
    const policy = 'package t\n\nr := x if x := crypto.md5(input.s)\n';
    const wasm = await compileWasm([{ file: 't.rego', text: policy }], ['t/r']);
    const p = await loadSdkPolicy(wasm, { 'crypto.md5': (s: unknown) => `md5 of ${String(s)}` });
    expect(p.evaluate({ s: 'abc' })).toEqual([{ result: 'md5 of abc' }]);
  });

  it('rule index: definitions keyed by a constant, with and without a match', async () => {
    const text = [
      'package api', '', 'default allow := false', '',
      'allow if { input.method == "GET"; input.path[0] == "public" }',
      'allow if { input.method == "POST"; input.user == "admin" }',
      'allow if { input.method == "GET"; input.user == "admin" }',
      'allow if input.user == "root"', '',
      'tags contains "read" if input.method == "GET"',
      'tags contains "write" if input.method == "POST"',
      'tags contains "any" if input.user',
    ].join('\n');
    const wasm = await compileWasm([{ file: 'api.rego', text }], ['api/allow', 'api/tags']);
    const p = await loadSdkPolicy(wasm);
    const cases = [
      { method: 'GET', path: ['public'] }, { method: 'GET', path: ['x'], user: 'admin' }, { method: 'POST', user: 'bob' },
      { method: 'POST', user: 'admin' }, { method: 'PUT', user: 'root' }, { user: 'bob' }, {},
    ];
    for (const input of cases) {
      expect(p.evaluate(input, 'api/allow')).toEqual(jsDecision(text, ['api', 'allow'], {}, input));
      expect(p.evaluate(input, 'api/tags')).toEqual(jsDecision(text, ['api', 'tags'], {}, input));
    }
  });

  it('a construct outside the supported slice is a typed compile error', async () => {
    const text = 'package t\n\nr if { print("hi"); input.x }\n';
    await expect(compileWasm([{ file: 't.rego', text }], ['t/r'])).rejects.toBeInstanceOf(WasmUnsupportedError);
  });

  it('general ref heads: several variable keys, multi-level contains, conflicts', async () => {
    const text = [
      'package t', '',
      'r[x].k[y] := v if { some x in input.xs; some y in input.ys; v := sprintf("%s-%s", [x, y]) }',
      'r.fixed.k.one := "const"', '',
      'tags[x][y] contains z if { some x in input.xs; some y in input.ys; some z in ["a", "b"] }', '',
      'clash[x][y] := y if { some x in input.xs; some y in input.ys }',
      'clash[x][y] := 0 if { some x in input.xs; some y in input.ys; input.clash }',
    ].join('\n');
    const wasm = await compileWasm([{ file: 't.rego', text }], ['t/r', 't/tags', 't/clash']);
    const p = await loadSdkPolicy(wasm);
    const input = { xs: ['p', 'q'], ys: ['1', '2'] };
    for (const path of [['t', 'r'], ['t', 'tags'], ['t', 'clash']]) {
      expect(p.evaluate(input, path.join('/'))).toEqual(jsDecision(text, path, {}, input));
    }
    expect(p.evaluate({ xs: [], ys: [] }, 't/r')).toEqual(jsDecision(text, ['t', 'r'], {}, { xs: [], ys: [] }));
    const host = await WasmPolicy.load(wasm);
    expect(() => host.evaluate({ ...input, clash: true }, 2)).toThrow(/multiple outputs|unique/);
  });

  it('malformed input and data give clean errors; the instance stays usable', async () => {
    const p = await WasmPolicy.load(rbac);
    p.setData(rbacData);
    const good = { user: 'bob', action: 'update', type: 'finance' };
    const enc = (s: string) => new TextEncoder().encode(s).buffer as ArrayBuffer;
    const sdk = await loadSdkPolicy(rbac);
    sdk.setData(rbacData);
    expect(() => sdk.evaluate(enc('{"user": "bob",'))).toThrow();
    expect(sdk.evaluate(good)).toEqual([{ result: true }]);
    expect(() => sdk.setData(enc('{"user_roles": [1, 2'))).toThrow();
    expect(sdk.evaluate(good)).toEqual([{ result: true }]);
    expect(p.evaluate(good)).toEqual([{ result: true }]);
  });

  it('a conflict aborts through opa_abort; the next evaluation works', async () => {
    const text = 'package t\n\nr := 1 if input.a\n\nr := 2 if input.b\n';
    const p = await WasmPolicy.load(await compileWasm([{ file: 't.rego', text }], ['t/r']));
    expect(() => p.evaluate({ a: true, b: true })).toThrow(/multiple outputs/);
    expect(p.evaluate({ a: true })).toEqual([{ result: 1 }]);
    expect(p.evaluate({})).toEqual([]);
  });

  it('memory stays bounded over 10^5 evaluations on one instance', async () => {
    const p = await WasmPolicy.load(rbac);
    p.setData(rbacData);
    let first = 0;
    for (let i = 0; i < 100_000; i++) {
      p.evaluate(inputs[i % inputs.length], 0);
      if (i === 99) first = p.heapHighWater;
    }
    console.log(`wasm heap high-water after 10^5 RBAC evaluations: ${p.heapHighWater} bytes (after 100: ${first})`);
    expect(p.heapHighWater).toBe(first);
  }, 120_000);
});
