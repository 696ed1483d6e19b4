import { parseModule, parseQuery, parseTerm } from '../../../compiler/parser/index.js';
const tries: [string, () => unknown][] = [
  ['100k [', () => parseTerm('['.repeat(100000))],
  ['100k [ closed', () => parseTerm('['.repeat(100000) + ']'.repeat(100000))],
  ['900 [ closed', () => parseTerm('['.repeat(900) + '1' + ']'.repeat(900))],
  ['100k {', () => parseQuery('x := ' + '{'.repeat(100000))],
  ['100k (', () => parseQuery('x := ' + '('.repeat(100000))],
  ['100k not', () => parseQuery('not '.repeat(100000) + 'x')],
  ['deep comps', () => parseQuery('x := ' + '[a | '.repeat(3000))],
  ['deep comps2', () => parseQuery('x := ' + '[a | '.repeat(30) + 'b' + ' ]'.repeat(29) + ', 1]')],
  ['100k +', () => parseQuery('x := ' + '1 + '.repeat(100000) + '1')],
  ['dots', () => parseQuery('x := a' + '.b'.repeat(100000))],
  ['long', () => parseModule('package p\n' + 'p contains x if { x := 1 }\n'.repeat(50000), 'f')],
  ['template nest', () => parseQuery('x := ' + '$"{'.repeat(5000))],
];
for (const [n, f] of tries) {
  const t = Date.now();
  try { const r = f(); console.log(n, 'OK', Date.now() - t, 'ms'); } catch (e: any) { console.log(n, e.constructor.name, String(e.message).slice(0, 120), Date.now() - t, 'ms'); }
}
