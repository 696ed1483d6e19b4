import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS } from '../../runtime/index.js';
import { readFileSync } from 'node:fs';
const text = readFileSync('/tmp/wd.rego', 'utf8');
const data = fromJS({ cfg: { mode: 'z' } });
const q = 'x := [data.p.t, data.p.u, data.p.v]';
for (const b of ['js', 'closures'] as const) console.log(b, JSON.stringify(compile([{ file: 'wd.rego', text }], { backend: b }).prepare(q).eval({ data }).map((r) => toJS(r.bindings.x))));
console.log('interp', JSON.stringify(prepareInterpreted(compile([{ file: 'wd.rego', text }]), q).eval({ data }).map((r: any) => toJS(r.bindings.x))));
