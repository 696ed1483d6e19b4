import { readFileSync, readdirSync } from 'node:fs';
import { load } from 'js-yaml';
import { parseModule, parseQuery, parseTerm } from '../../../compiler/parser/index.js';
import { formatModule } from '../../../compiler/ast/print.js';
const root = '/work/shared/opa-conformance/v1';
let n = 0, fail = 0, qfail = 0, tfail = 0, pfail = 0;
for (const d of readdirSync(root)) for (const f of readdirSync(`${root}/${d}`)) {
  const doc = load(readFileSync(`${root}/${d}/${f}`, 'utf8')) as any;
  for (const c of doc.cases ?? []) {
    for (const [i, m] of (c.modules ?? []).entries()) {
      n++;
      let mod;
      try { mod = parseModule(m, `${c.note}#${i}`); } catch (e: any) { fail++; if (fail <= 15) console.log('FAIL', c.note, String(e.message ?? e).slice(0, 200)); continue; }
      try {
        const p1 = formatModule(mod);
        const p2 = formatModule(parseModule(p1, 'x'));
        if (p1 !== p2) { pfail++; if (pfail <= 5) console.log('NONIDEMP', c.note, '\n' + p1 + '\n----\n' + p2); }
      } catch (e: any) { pfail++; if (pfail <= 5) console.log('PRINTFAIL', c.note, String(e.message ?? e).slice(0, 300), '\n' + formatModule(mod)); }
    }
    if (c.query) try { parseQuery(c.query); } catch (e: any) { qfail++; if (qfail < 5) console.log('QFAIL', c.note, c.query, e.message); }
    if (c.input_term) try { parseTerm(c.input_term); } catch (e: any) { tfail++; if (tfail < 5) console.log('TFAIL', c.note, c.input_term, e.message); }
  }
}
console.log({ n, fail, qfail, tfail, pfail });
