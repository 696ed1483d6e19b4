// experiment: each size alone vs 1-rule, in one process
import { compile } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
const sizes = (process.argv[2] ?? '1,100').split(',').map(Number);
const ins = Array.from({ length: 64 }, (_, k) => ({ x: k % 2 ? 'c0' : `other-${k}` }));
const values = ins.map((x) => fromJS(x));
const data = fromJS({});
const decides: Record<number, any> = {};
for (const n of sizes) {
  const lines = ['package idx', 'import rego.v1', ''];
  for (let i = 0; i < n; i++) lines.push(`allow if input.x == "c${i}"`);
  const p = compile([{ file: 'a.rego', text: lines.join('\n') + '\n' }]);
  decides[n] = p.prepareDecision(['idx', 'allow']);
}
let sink = 0, i = 0;
function run(d: any, calls: number) {
  const t = process.hrtime.bigint();
  for (let k = 0; k < calls; k++) if (d({ input: values[i++ & 63], data }) === true) sink++;
  return Number(process.hrtime.bigint() - t) / calls;
}
for (const n of sizes) run(decides[n], 200000);
const res: Record<number, number[]> = {};
for (let r = 0; r < 30; r++) for (const n of sizes) (res[n] ??= []).push(run(decides[n], 100000));
const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
for (const n of sizes) console.log(n, med(res[n]).toFixed(1), 'ns', (med(res[n]) / med(res[sizes[0]])).toFixed(2));
