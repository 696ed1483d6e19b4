import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { compile } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
const dir = '../shared/bench-workloads/aci';
const cases = (load(readFileSync(join(dir, 'aci.yaml'), 'utf8')) as any).cases;
const baseData = JSON.parse(readFileSync(join(dir, 'data.json'), 'utf8'));
const c = cases.find((x: any) => x.query.endsWith('create_container'));
const files = c.modules.map((m: string, i: number) => (m.endsWith('.rego') ? { file: m, text: readFileSync(join(dir, m), 'utf8') } : { file: `f${i}.rego`, text: m }));
const policy: any = compile(files.map((f: any) => ({ ...f, v0Compatible: true })), { v0Compatible: true });
const decide = policy.prepareDecision(c.query.replace(/^data\./, '').split('.'));
const data = fromJS({ ...baseData, ...(c.data ?? {}) });
const input = fromJS(c.input);
const prog = policy.program;
const counts = new Map<string, number>();
for (const m of ['evalOneSolution', 'single', 'anySolution', 'evalFunction', 'callFunction', 'evalGroup']) {
  const orig = prog[m];
  if (!orig) continue;
  prog[m] = function (this: any, ...a: any[]) { const key = m + (m === 'evalFunction' ? ' ' + policy.ir.groups[a[0]].path.join('.') + (prog.oneSolution?.[a[0]] ? ' [1]' : prog.fnConstants[a[0]] !== undefined ? ' [k]' : ' [many]') : ''); counts.set(key, (counts.get(key) ?? 0) + 1); return orig.apply(this, a); };
}
decide({ input, data });
for (const [k, v] of [...counts].sort()) console.log(v, k);
