const N = Number(process.argv[2] ?? 100);
const keys = Array.from({ length: N }, (_, i) => `c${i}`);
const m = new Map(keys.map((k) => [k, true]));
// hash: length + last 4 chars (when present)
function h(v) { const n = v.length; let x = n; for (let p = 1; p <= 4; p++) x = Math.imul(x ^ (p <= n ? v.charCodeAt(n - p) : 0), 0x9E3779B1); return x >>> 0; }
let bits = 1; while ((1 << bits) < N * 4) bits++;
const mask = (1 << bits) - 1;
const tk = new Array(mask + 1).fill(undefined), tv = new Array(mask + 1).fill(undefined);
let coll = 0;
for (const k of keys) { const s = (h(k) >>> (32 - bits)); if (tk[s] !== undefined) coll++; tk[s] = k; tv[s] = true; }
console.log('collisions', coll, 'bits', bits);
const ins = Array.from({ length: 64 }, (_, k) => JSON.parse(JSON.stringify({ x: k % 2 ? keys[(k * 7919) % N] : `other-${k}` })).x);
let sink = 0, i = 0;
const one = (v) => v === 'c0';
const viaMap = (v) => m.get(v) === true;
const shift = 32 - bits;
const viaHash = (v) => {
  const n = v.length;
  let x = n;
  x = Math.imul(x ^ (n >= 1 ? v.charCodeAt(n - 1) : 0), 0x9E3779B1);
  x = Math.imul(x ^ (n >= 2 ? v.charCodeAt(n - 2) : 0), 0x9E3779B1);
  x = Math.imul(x ^ (n >= 3 ? v.charCodeAt(n - 3) : 0), 0x9E3779B1);
  x = Math.imul(x ^ (n >= 4 ? v.charCodeAt(n - 4) : 0), 0x9E3779B1);
  const s = x >>> shift;
  return tk[s] === v && tv[s] === true;
};
function run(f, calls) { const t = process.hrtime.bigint(); for (let k = 0; k < calls; k++) if (f(ins[i++ & 63])) sink++; return Number(process.hrtime.bigint() - t) / calls; }
const fs = { one, viaMap, viaHash };
for (const f of Object.values(fs)) run(f, 1e6);
const res = {};
for (let r = 0; r < 20; r++) for (const [n, f] of Object.entries(fs)) (res[n] ??= []).push(run(f, 1e6));
for (const [n, xs] of Object.entries(res)) console.log(N, n, xs.sort((a, b) => a - b)[10].toFixed(2));
