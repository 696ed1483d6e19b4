import { readFileSync } from 'node:fs';
import { compile } from '../../compiler/index.js';
import { fromJS } from '../../runtime/index.js';
import { makeRbacData } from '../fixtures/rbac/make-data.js';
const p = compile([{ file: 'p.rego', text: readFileSync('bench/fixtures/rbac/policy.rego', 'utf8') }]);
const d = p.prepareDecision(['rbac', 'allow']);
const data = fromJS(makeRbacData());
console.log(d({ input: fromJS({ user: 'user1', action: 'read', type: 'dog' }), data }));
