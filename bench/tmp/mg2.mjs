const N = 100;
const intern = (s) => Object.keys({ [s]: 0 })[0];
const keys = Array.from({ length: N }, (_, i) => `c${i}`);
const m = new Map(keys.map((k) => [k, true]));
const mi = new Map(keys.map((k) => [intern(k), true]));
const mixed = Array.from({ length: 64 }, (_, k) => (k % 2 ? 'c0' : `other-${k}`));
const parsed = JSON.parse(JSON.stringify(mixed));
const allLit = Array.from({ length: 64 }, (_, k) => (k % 2 ? 'c0' : 'c1x'));
let sink = 0, i = 0;
function mk(m, ins) { return () => { for (let k = 0; k < 1e6; k++) if (m.get(ins[i++ & 63]) === true) sink++; }; }
const fs = { mixed: mk(m, mixed), mixedI: mk(mi, mixed), parsed: mk(m, parsed), parsedI: mk(mi, parsed), allLit: mk(m, allLit), allLitI: mk(mi, allLit) };
const res = {};
for (let r = 0; r < 15; r++) for (const [n, f] of Object.entries(fs)) { const t = process.hrtime.bigint(); f(); (res[n] ??= []).push(Number(process.hrtime.bigint() - t) / 1e6); }
for (const [n, xs] of Object.entries(res)) console.log(n, xs.sort((a, b) => a - b)[7].toFixed(2));
