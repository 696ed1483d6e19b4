import { compile } from '../compiler/index.js';
import { listQuery, listIR } from '../compiler/ir/listing.js';
const p: any = compile([{ file: 'a.rego', text: 'package a\nr := "foo"\nf(x) := x\np := count([1]) if { x := [1, "a"][_]; count(x, n) }\n' }]);
for (const q of process.argv.slice(2)) {
  console.log('==', q);
  try { console.log(listQuery(p.planQuery(q))); } catch (e) { console.log(String(e)); }
}
console.log(listIR(p.state.ir).split('\n').filter((l: string) => /a\.p|count/.test(l) || true).slice(0, 30).join('\n'));
