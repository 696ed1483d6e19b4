// The prepared forms of the Backend interface (compiler/backend.ts), which the
// server's EvalCore runs: prepareDecision (one function per path, positional
// arguments) and prepare (a query) give what decide/query give on every back end;
// a Wasm decision reports where it ran in `timers`, hands strict-builtin-error calls
// and aborts to the JS back end, stops at the evaluation deadline, and a WasmBackend over several modules lets the
// earlier module serve a path both have. EvalCore on such a back end answers as on JS.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_NAMES, compile, compileWasm, createBackend, loadWasmBackend, type Backend, type CompiledPolicy } from '../../compiler/index.js';
import { RObject, fromJS, toJS } from '../../runtime/index.js';
import { EvalCore } from '../../server/engine/evaluate.js';
import { repoRoot } from '../shared-dir.js';
import { ensureRuntime } from './sdk-host.js';

const rbacDir = join(repoRoot, 'examples/rbac');
const rbac = compile([{ file: 'rbac.rego', text: readFileSync(join(rbacDir, 'rbac.rego'), 'utf8') }]);
const rbacData = fromJS(JSON.parse(readFileSync(join(rbacDir, 'data.json'), 'utf8'))) as RObject;
const inputs = [
  { user: 'alice', action: 'delete', type: 'finance' },
  { user: 'bob', action: 'update', type: 'finance' },
  { user: 'eve', action: 'read', type: 'dog' },
];
const PATHS = [['rbac', 'allow'], ['rbac'], ['rbac', 'user_is_granted'], ['user_roles', 'alice'], ['nothing']];

describe('prepared decisions and queries', () => {
  const backends: Backend[] = [];
  beforeAll(async () => {
    ensureRuntime();
    for (const name of BACKEND_NAMES) {
      const b = await createBackend(name, rbac, { optimize: 0 });
      b.setData(rbacData);
      backends.push(b);
    }
  }, 120_000);

  it('prepareDecision and prepare answer as decide and query, on every back end', () => {
    for (const b of backends) {
      for (const path of PATHS) {
        const d = b.prepareDecision(path);
        expect(d.runsOn).toBe(b.name === 'wasm' && !b.serves(path) ? 'js' : b.name);
        for (const input of inputs) {
          const want = toJS(b.decide(path, { input: fromJS(input) }) ?? null);
          expect(toJS(d.eval(fromJS(input), undefined, false, undefined) ?? null), `${b.name} ${path.join('/')}`).toEqual(want);
          // the input as JSON text: decoded by JS back ends, read as it is by the module
          expect(toJS(d.eval(undefined, JSON.stringify(input), false, Date.now() + 10_000) ?? null)).toEqual(want);
        }
      }
      const q = b.prepare('x := data.rbac.user_is_granted[_]; y := input.user');
      expect(q.vars).toEqual(['x', 'y']);
      for (const input of inputs) {
        const rows = (r: ReturnType<typeof q.eval>) => r.map((row) => toJS(RObject.fromEntries(Object.entries(row.bindings))));
        expect(rows(q.eval({ input: fromJS(input) }))).toEqual(rows(b.query('x := data.rbac.user_is_granted[_]; y := input.user', { input: fromJS(input) })));
        expect(rows(q.eval({ inputText: JSON.stringify(input) }))).toEqual(rows(backends[0]!.query('x := data.rbac.user_is_granted[_]; y := input.user', { input: fromJS(input) })));
      }
    }
  });

  it('a Wasm decision says where it ran; strict calls and aborts go to the JS back end', async () => {
    const policy = compile([{ file: 'c.rego', text: 'package c\n\nx := 1 if input.a\nx := 2 if input.b\n\nn := to_number(input.s)\n' }]);
    const wasm = await createBackend('wasm', policy, { optimize: 0 });
    expect(wasm.name).toBe('wasm');
    const x = wasm.prepareDecision(['c', 'x']);
    expect(x.runsOn).toBe('wasm');
    let timers: Record<string, number> = {};
    expect(x.eval(undefined, '{"a":true}', false, undefined, timers)).toEqual(fromJS(1));
    expect(timers.timer_regent_wasm_eval_ns).toBeGreaterThan(0);
    timers = {};
    expect(() => x.eval(undefined, '{"a":true,"b":true}', false, undefined, timers)).toThrow(/complete rules must not produce multiple outputs/);
    expect(timers).toEqual({ counter_regent_wasm_fallback: 1 });
    // strict builtin errors: the JS back end raises where the module's native would be undefined
    const n = wasm.prepareDecision(['c', 'n']);
    expect(n.eval(undefined, '{"s":"x"}', false, undefined)).toBeUndefined();
    timers = {};
    expect(() => n.eval(undefined, '{"s":"x"}', true, undefined, timers)).toThrow(/invalid syntax|to_number/);
    expect(timers).toEqual({});
    // decide() alike
    expect(wasm.decide(['c', 'n'], { inputText: '{"s":"x"}' })).toBeUndefined();
    expect(() => wasm.decide(['c', 'n'], { inputText: '{"s":"x"}', strictBuiltinErrors: true })).toThrow(/invalid syntax|to_number/);
  }, 120_000);

  it('the evaluation deadline reaches the module: eval_cancel_error at once, no second run on JS', async () => {
    const policy = compile([{ file: 'l.rego', text: 'package l\n\nn := count({x | some i in numbers.range(1, input.n); some j in numbers.range(1, input.n); x := (i + j) % 7})\n' }]);
    const wasm = await createBackend('wasm', policy, { optimize: 0 });
    const d = wasm.prepareDecision(['l', 'n']);
    expect(d.eval(undefined, '{"n":10}', false, Date.now() + 10_000)).toEqual(fromJS(7));
    const timers: Record<string, number> = {};
    const t = Date.now();
    expect(() => d.eval(undefined, '{"n":100000}', false, Date.now() + 50, timers)).toThrow(/evaluation deadline exceeded/);
    expect(Date.now() - t).toBeLessThan(5_000);
    expect(timers.counter_regent_wasm_fallback).toBeUndefined();
    expect(() => wasm.decide(['l', 'n'], { inputText: '{"n":100000}', deadline: Date.now() + 50 })).toThrow(/evaluation deadline exceeded/);
    expect((wasm as unknown as { stats: { fallback: number } }).stats.fallback).toBe(0);
    // the server's core: the task's timeout becomes the deadline
    const core = new EvalCore(false, policy);
    core.setWasmModules([{ source: 'engine', bytes: await compileWasm(policy, [['l', 'n']], { optimize: 0 }), entrypoints: [['l', 'n']] }]);
    const out = core.run({ generation: 0, query: 'data.l.n', mode: 'value', path: ['l', 'n'], input: { kind: 'text', text: '{"n":100000}' }, strictBuiltinErrors: false, pretty: false, timeoutMs: 50 });
    expect(out.error).toMatchObject({ kind: 'eval', code: 'eval_cancel_error' });
  }, 120_000);

  it('several modules: the earlier one serves a shared path, each counts its own decisions', async () => {
    const policy = compile([{ file: 'm.rego', text: 'package m\n\na := input.v + 1\n\nb := input.v * 2\n' }]);
    const first = await compileWasm(policy, [['m', 'a']], { optimize: 0 });
    const second = await compileWasm(policy, [['m', 'a'], ['m', 'b']], { optimize: 0 });
    const b = loadWasmBackend(policy, [
      { bytes: first, source: 'bundle:one' },
      { bytes: second, source: 'engine' },
      { bytes: new Uint8Array([0, 1, 2]), source: 'broken' },
    ]);
    b.setData(new RObject());
    expect(b.errors).toHaveLength(1);
    expect(b.errors[0]).toMatch(/^broken: /);
    expect(b.entrypointPaths.sort()).toEqual(['m/a', 'm/b']);
    expect(b.decide(['m', 'a'], { inputText: '{"v":1}' })).toEqual(fromJS(2));
    expect(b.prepareDecision(['m', 'b']).eval(undefined, '{"v":3}', false, undefined)).toEqual(fromJS(6));
    expect(b.moduleStats()).toEqual([
      { source: 'bundle:one', wasm: 1, fallback: 0, entrypoints: ['m/a'] },
      { source: 'engine', wasm: 1, fallback: 0, entrypoints: ['m/b'] },
    ]);
    expect(b.stats).toMatchObject({ wasm: 2, fallback: 0 });
  }, 120_000);

  it('EvalCore answers Data API reads and queries on Wasm modules as on the JS back end', async () => {
    const wasm = await compileWasm(rbac, [['rbac', 'allow']], { optimize: 0 });
    const make = (withWasm: boolean): EvalCore => {
      const core = new EvalCore(false, rbac as CompiledPolicy);
      core.data = rbacData;
      if (withWasm) core.setWasmModules([{ source: 'engine', bytes: wasm, entrypoints: [['rbac', 'allow']] }]);
      return core;
    };
    const [js, w] = [make(false), make(true)];
    expect(w.wasm.active).toBe(true);
    expect(js.wasm.active).toBe(false);
    for (const input of inputs) {
      const task = { generation: 0, query: 'data.rbac.allow', mode: 'value' as const, path: ['rbac', 'allow'], input: { kind: 'text' as const, text: JSON.stringify(input) }, strictBuiltinErrors: false, pretty: false };
      const a = js.run(task);
      const b = w.run(task);
      expect(b.resultText).toBe(a.resultText);
      expect(b.timers.timer_regent_wasm_eval_ns).toBeGreaterThan(0);
      expect(a.timers.timer_regent_wasm_eval_ns).toBeUndefined();
      const q = { ...task, query: 'x := data.rbac.allow', mode: 'bindings' as const, path: undefined };
      expect(w.run(q).resultText).toBe(js.run(q).resultText);
    }
    // a store write reaches the module's copy
    w.applyWrite({ op: 'add', path: ['user_roles', 'eve'], value: fromJS(['admin']) });
    const eve = { generation: 0, query: 'data.rbac.allow', mode: 'value' as const, path: ['rbac', 'allow'], input: { kind: 'js' as const, js: { user: 'eve', action: 'x', type: 'y' } }, strictBuiltinErrors: false, pretty: false };
    expect(w.run(eve).resultText).toBe('true');
    expect(w.wasm.stats()).toEqual([{ source: 'engine', wasm: inputs.length + 1, fallback: 0, entrypoints: ['rbac/allow'] }]);
    // a new policy drops the modules until the next setWasmModules
    w.setPolicy(rbac);
    expect(w.wasm.active).toBe(false);
    expect(w.run(eve).timers.timer_regent_wasm_eval_ns).toBeUndefined();
  }, 120_000);
});
