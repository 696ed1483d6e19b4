// Pass `erase-print`: OPA's erasePrintCalls (v1/ast/compile.go), run when print
// statements are off (CompileOptions.printStatements === false: `test --bench`, as
// opa; `build -t wasm` erases them itself unless --wasm-include-print). Every
// `print(...)` body expression goes, in comprehensions and `every` bodies too, and a
// body left empty becomes `true`. A print used as a value is not erased (the planner
// reports `print(...) used as value`, as OPA's checkVoidCalls).
import type { Body, Expr, Module, Rule, Term } from '../ast/nodes.js';
import { mapExpr, mapTerm, refName } from '../ast/transform.js';
import { walkTerms } from '../ast/walk.js';
import type { Pass } from './pass.js';

export const erasePrint: Pass = {
  name: 'erase-print',
  run(state) {
    if (state.opts.printStatements === false) state.modules = state.modules.map(erasePrints);
  },
};

const isPrint = (e: Expr): boolean => e.body.type === 'term' && e.body.term.kind === 'call' && refName(e.body.term.op) === 'print';

/** A body without its print expressions (nested bodies too); `true` when nothing is left. */
function eraseBody(body: Body): Body {
  const kept = body.filter((e) => !isPrint(e)).map(eraseExpr);
  if (kept.length > 0 || body.length === 0) return kept;
  const loc = body[0]!.loc;
  return [{ kind: 'expr', negated: false, body: { type: 'term', term: { kind: 'boolean', value: true, loc } }, with: [], loc }];
}

function eraseTerm(t: Term): Term | undefined {
  if (t.kind === 'arraycomp' || t.kind === 'setcomp') return { ...t, head: mapTerm(t.head, eraseTerm), body: eraseBody(t.body) };
  if (t.kind === 'objectcomp') return { ...t, key: mapTerm(t.key, eraseTerm), value: mapTerm(t.value, eraseTerm), body: eraseBody(t.body) };
  return undefined;
}

function eraseExpr(e: Expr): Expr {
  const out = mapExpr(e, eraseTerm);
  if (e.notBody) out.notBody = eraseBody(e.notBody);
  if (e.body.type === 'every' && out.body.type === 'every') out.body = { ...out.body, body: eraseBody(e.body.body) };
  return out;
}

function eraseRule(r: Rule): Rule {
  return { ...r, body: eraseBody(r.body), ...(r.else ? { else: eraseRule(r.else) } : {}) };
}

/** OPA's erasePrintCalls over a module. */
export function erasePrints(m: Module): Module {
  return { ...m, rules: m.rules.map(eraseRule) };
}

/** Does the module call print() anywhere? */
export function callsPrint(m: Module): boolean {
  let found = false;
  walkTerms(m, (t: Term) => {
    if (t.kind === 'call' && refName(t.op) === 'print') found = true;
  });
  return found;
}
