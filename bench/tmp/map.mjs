const N = Number(process.argv[2] ?? 100);
const keys = Array.from({ length: N }, (_, i) => `c${i}`);
const m = new Map(keys.map((k) => [k, true]));
const o = Object.create(null); for (const k of keys) o[k] = true;
const ins = Array.from({ length: 64 }, (_, k) => JSON.parse(JSON.stringify({ x: k % 2 ? 'c0' : `other-${k}` })).x);
let sink = 0, i = 0;
const one = (v) => v === 'c0';
const viaMap = (v) => m.get(v) === true;
const viaObj = (v) => o[v] === true;
const viaSwitch = new Function('v', `switch (v) { ${keys.slice(0, 2000).map((k) => `case ${JSON.stringify(k)}: return true;`).join('\n')} } return false;`);
function run(f, calls) { const t = process.hrtime.bigint(); for (let k = 0; k < calls; k++) if (f(ins[i++ & 63])) sink++; return Number(process.hrtime.bigint() - t) / calls; }
const fs = { one, viaMap, viaObj, viaSwitch };
for (const f of Object.values(fs)) run(f, 1e6);
const res = {};
for (let r = 0; r < 20; r++) for (const [n, f] of Object.entries(fs)) (res[n] ??= []).push(run(f, 1e6));
for (const [n, xs] of Object.entries(res)) console.log(N, n, xs.sort((a, b) => a - b)[10].toFixed(2));
