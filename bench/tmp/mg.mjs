const N = 100;
const keys = Array.from({ length: N }, (_, i) => `c${i}`);
const m = new Map(keys.map((k) => [k, true]));
const mixed = Array.from({ length: 64 }, (_, k) => (k % 2 ? 'c0' : `other-${k}`));
const allLit = Array.from({ length: 64 }, (_, k) => (k % 2 ? 'c0' : 'c1x'));
const allTpl = Array.from({ length: 64 }, (_, k) => `other-${k}`);
let sink = 0, i = 0;
function mk(ins) { return () => { for (let k = 0; k < 1e6; k++) if (m.get(ins[i++ & 63]) === true) sink++; }; }
function mk2(ins) { return () => { for (let k = 0; k < 1e6; k++) if (ins[i++ & 63] === 'c0') sink++; }; }
const fs = { mixed: mk(mixed), allLit: mk(allLit), allTpl: mk(allTpl), eqMixed: mk2(mixed) };
const res = {};
for (let r = 0; r < 15; r++) for (const [n, f] of Object.entries(fs)) { const t = process.hrtime.bigint(); f(); (res[n] ??= []).push(Number(process.hrtime.bigint() - t) / 1e6); }
for (const [n, xs] of Object.entries(res)) console.log(n, xs.sort((a, b) => a - b)[7].toFixed(2));
