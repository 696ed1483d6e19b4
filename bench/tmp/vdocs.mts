import { compile } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
const sizes = [1, 100, 1000, 10000];
const hit = `allow if {\n  input.method = "POST"\n  input.path = ["accounts", account_id]\n  input.user_id = account_id\n}\n`;
const miss = `allow if {\n  input.method = "GET"\n  input.path = ["salaries", account_id]\n  input.user_id = account_id\n}\n`;
const input = fromJS({ path: ['accounts', 'alice'], method: 'POST', user_id: 'alice' });
const data = fromJS({});
const decides: Record<number, any> = {};
for (const n of sizes) {
  const text = 'package a.b.c\nimport rego.v1\n' + miss.repeat(n - 1) + hit;
  const t = performance.now();
  const p = compile([{ file: 'a.rego', text }]);
  decides[n] = p.prepareDecision(['a', 'b', 'c', 'allow']);
  if (decides[n]({ input, data }) !== true) throw new Error('wrong ' + n);
  console.log(n, 'compiled', (performance.now() - t).toFixed(0), 'ms');
}
let sink = 0;
function run(d: any, calls: number) { const t = process.hrtime.bigint(); for (let k = 0; k < calls; k++) if (d({ input, data }) === true) sink++; return Number(process.hrtime.bigint() - t) / calls; }
for (const n of sizes) run(decides[n], 200000);
const res: Record<number, number[]> = {};
for (let r = 0; r < 30; r++) for (const n of sizes) (res[n] ??= []).push(run(decides[n], 50000));
const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
for (const n of sizes) console.log(`${n}x1`, med(res[n]).toFixed(1), 'ns', (med(res[n]) / med(res[1])).toFixed(2));
