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
const policy = compile(files.map((f: any) => ({ ...f, v0Compatible: true })), { v0Compatible: true });
const decide = policy.prepareDecision(c.query.replace(/^data\./, '').split('.'));
const data = fromJS({ ...baseData, ...(c.data ?? {}) });
const input = fromJS(c.input);
import { toJS } from "../../runtime/index.js";
console.log(JSON.stringify(toJS(decide({ input, data }) as any)).slice(0, 200));
let n = 0;
for (let r = 0; r < 10; r++) {
  const t = performance.now();
  for (let i = 0; i < 20000; i++) if (decide({ input, data }) !== undefined) n++;
  console.log(((performance.now() - t) / 20000 * 1000).toFixed(0), 'ns');
}
const t0 = performance.now(); const v = decide({ input, data }); console.log('one call', (performance.now() - t0) * 1000, 'ns', v === undefined);
const input2 = fromJS({ ...(c.input as any), containerID: 'zzz' });
const t1 = performance.now(); const v2 = decide({ input: input2, data }); console.log('new input', (performance.now() - t1) * 1000, 'ns', JSON.stringify(toJS(v2 as any)).slice(0, 100));
console.log(Object.keys(c.input));
