import { compile } from '../../compiler/index.js';
import { fromJS, toJS } from '../../runtime/index.js';
const p = compile([{ file: 'a.rego', text: 'package t\n' }]);
for (const n of [100, 1000, 3000]) {
  const data = fromJS({ arr: Array.from({ length: n }, (_, i) => i) });
  const q = p.prepare(`walk(data, [["arr", ${n - 1}], x])`);
  const rows = q.eval({ data });
  if (toJS(rows[0]!.bindings.x as never) !== n - 1 || rows.length !== 1) throw new Error('bad ' + JSON.stringify(rows.length));
  const t = performance.now(); let k = 0;
  while (performance.now() - t < 500) { q.eval({ data }); k++; }
  console.log('walk', n, ((performance.now() - t) / k * 1000).toFixed(1), 'µs');
}
for (const n of [10, 100, 1000, 10000]) {
  const data = fromJS({ arr: Array.from({ length: n }, (_, i) => i), obj: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])) });
  for (const [name, qs] of [['array', `data.arr[i] == ${n - 1}`], ['object', `data.obj[k] == ${n - 1}`], ['set', `s := {x | x := data.arr[_]}; s[${n - 1}]`]] as const) {
    const q = p.prepare(qs);
    if (q.eval({ data }).length !== 1) throw new Error('bad ' + name);
    const t = performance.now(); let k = 0;
    while (performance.now() - t < 300) { q.eval({ data }); k++; }
    console.log(name, n, ((performance.now() - t) / k * 1000).toFixed(1), 'µs');
  }
}
