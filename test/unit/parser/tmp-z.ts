import { parseModule } from '../../../compiler/parser/index.js';
for (const n of [10000, 20000, 40000]) {
const src2 = 'package p\n' + 'p := 1\n'.repeat(n);
const t = Date.now(); parseModule(src2, 'f'); console.log('const', n, Date.now() - t);
}
