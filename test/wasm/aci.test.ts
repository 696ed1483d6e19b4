// The Azure Container Instances policy (regorus' tests/aci, in the shared workloads
// folder: about 1,300 lines of Rego v0) compiled to policy.wasm: every case of aci.yaml
// gives the JS back end's result (and the expected one) through Regent's host and,
// where its builtins allow, through OPA's SDK.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { compile, compileWasm } from '../../compiler/index.js';
import { fromJS, toJS } from '../../runtime/value/json.js';
import { WasmPolicy } from '../../runtime/wasm/host.js';
import { sharedDir } from '../shared-dir.js';
import { canonical } from './differential.js';
import { ensureRuntime } from './sdk-host.js';

const dir = join(sharedDir(), 'bench-workloads', 'aci');
type Case = { note: string; modules: string[]; input: unknown; data?: Record<string, unknown>; query: string; want_result: { x: unknown }[] };

describe.skipIf(!existsSync(join(dir, 'aci.yaml')))('ACI policy on the Wasm back end', () => {
  it('every aci.yaml case agrees with the JS back end and the expected result', async () => {
    ensureRuntime();
    const spec = load(readFileSync(join(dir, 'aci.yaml'), 'utf8')) as { cases: Case[] };
    const baseData = JSON.parse(readFileSync(join(dir, 'data.json'), 'utf8')) as Record<string, unknown>;
    for (const c of spec.cases) {
      const files = c.modules.map((m, i) => (m.endsWith('.rego') ? { file: m, text: readFileSync(join(dir, m), 'utf8') } : { file: `fragment${i}.rego`, text: m }));
      const policy = compile(files.map((f) => ({ ...f, v0Compatible: true })), { v0Compatible: true });
      const path = c.query.replace(/^data\./, '').split('.');
      const data = { ...baseData, ...(c.data ?? {}) };
      const v = policy.prepareDecision(path)({ input: fromJS(c.input), data: fromJS(data) });
      const js = v === undefined ? [] : [{ result: toJS(v) }];
      expect(canonical(js), c.note).toBe(canonical(c.want_result.map((r) => ({ result: r.x }))));
      const host = await WasmPolicy.load(await compileWasm(policy, [path]));
      host.setData(data);
      expect(canonical(host.evaluate(c.input)), c.note).toBe(canonical(js));
    }
  }, 120_000);
});
