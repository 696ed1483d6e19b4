import { compile } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
const N = Number(process.argv[2] ?? 1000);
const profiles = Array.from({ length: N }, (_, i) => ({ path: `^/api/v1/resourcetype-${i}/.*$`, methods: ['POST', 'GET'] }));
const data = fromJS({ restauthz: { tokens: { tok: { id: 'tok', authz_profiles: profiles } } } });
const text = `package policy.restauthz
import rego.v1
default allow := false
allow if {
  token := data.restauthz.tokens[input.token_id]
  some authz in token.authz_profiles
  regex.match(authz.path, input.path)
  some m in authz.methods
  m == input.method
}`;
const p = compile([{ file: 'a.rego', text }]);
const d = p.prepareDecision(['policy', 'restauthz', 'allow']);
const input = fromJS({ token_id: 'tok', path: `/api/v1/resourcetype-${N - 1}/x`, method: 'GET' });
console.log(d({ input, data }));
for (let r = 0; r < 5; r++) {
  const t = performance.now(); let k = 0;
  while (performance.now() - t < 1000) { d({ input, data }); k++; }
  console.log(N, ((performance.now() - t) / k).toFixed(3), 'ms/decision');
}
