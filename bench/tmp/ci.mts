import { compile } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
const text = `package test
import rego.v1
groups contains [v, ks] if {
  v := data.items[_]
  ks := [k | some k; v == data.items[k]]
}
`;
const p = compile([{ file: 'a.rego', text }]);
for (const n of [10, 100, 1000, 3000]) {
  const data = fromJS({ items: Array.from({ length: n }, (_, i) => `v${i % (n / 2)}`) });
  const d = p.prepareDecision(['test', 'groups']);
  d({ data });
  const t = performance.now(); let k = 0;
  while (performance.now() - t < 500) { d({ data }); k++; }
  console.log(n, ((performance.now() - t) / k).toFixed(3), 'ms');
}
