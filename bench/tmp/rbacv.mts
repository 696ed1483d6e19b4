import { readFileSync } from 'node:fs';
import { compile } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
import { makeRbacData, handWrittenAllow } from '../fixtures/rbac/make-data.js';
const p = compile([{ file: 'p.rego', text: readFileSync('bench/fixtures/rbac/policy.rego', 'utf8') }]);
const d = p.prepareDecision(['rbac', 'allow']);
const raw = makeRbacData();
const data = fromJS(raw);
const ACT = ['read', 'write', 'delete', 'update', 'list'], TY = ['dog', 'cat', 'bird', 'fish', 'horse', 'cow', 'pig', 'goat'];
const ins = Array.from({ length: 64 }, (_, k) => ({ user: `user-${(k * 37) % 520}`, action: ACT[k % 5], type: TY[(k * 3) % 8] }));
const vals = ins.map((x) => fromJS(x));
for (let k = 0; k < 64; k++) if ((d({ input: vals[k], data }) === true) !== handWrittenAllow(raw, ins[k])) throw new Error('mismatch ' + k);
let sink = 0, i = 0;
const A = () => { for (let k = 0; k < 64; k++) if (d({ input: vals[i++ & 63], data }) === true) sink++; };
const H = () => { for (let k = 0; k < 64; k++) if (handWrittenAllow(raw, ins[i++ & 63])) sink++; };
function t(f: () => void, n: number) { const s = process.hrtime.bigint(); for (let r = 0; r < n; r++) f(); return Number(process.hrtime.bigint() - s) / n / 64; }
t(A, 3000); t(H, 3000);
const ra: number[] = [], rh: number[] = [];
for (let r = 0; r < 40; r++) { ra.push(t(A, 500)); rh.push(t(H, 500)); }
const med = (x: number[]) => x.sort((a, b) => a - b)[x.length >> 1];
console.log(process.env.V ?? '-', med(ra).toFixed(1), med(rh).toFixed(1), (med(ra) / med(rh)).toFixed(2));
