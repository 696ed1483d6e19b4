import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compile } from '../compiler/index.js';
import { fromJS } from '../runtime/index.js';
import { sharedDir } from '../test/shared-dir.js';
import { containerLimitsParams, makeReviews } from './fixtures/admission/reviews.js';
const root = join(sharedDir(), 'rego-corpus', 'gatekeeper-library', 'src');
const files = ['general/containerlimits/src.rego', 'general/containerlimits/lib_exempt_container.rego'];
const policy = compile(files.map((f) => ({ file: f, text: readFileSync(join(root, f), 'utf8'), v0Compatible: true })), { v0Compatible: true });
const decide = policy.prepareDecision(['k8scontainerlimits', 'violation']);
const values = makeReviews(32, containerLimitsParams).map((r) => fromJS(r));
const empty = fromJS({});
let n = 0;
const t0 = performance.now();
for (let r = 0; r < 3000; r++) for (const v of values) { decide({ input: v, data: empty }); n++; }
console.log(((performance.now() - t0) * 1000 / n).toFixed(2), 'us/decision');
