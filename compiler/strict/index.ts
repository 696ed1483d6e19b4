// Strict mode (`regent check --strict`, OPA's `WithStrict(true)`): the extra
// checks OPA's compiler runs in strict mode, with OPA's codes, messages and
// locations. They run on the parsed (source) AST, so names and locations are the
// user's, and are reported at the point of the pipeline where OPA's stage runs:
// like every pass, a stage that finds errors stops compilation.
//
//   OPA stage               check                                     file
//   ResolveRefs             import … unused (+ args must not shadow)  names.ts
//   CheckKeywordOverrides   rules/args/variables must not shadow …    names.ts
//   CheckDuplicateImports   import must not shadow import …           names.ts
//   RewriteLocalVars        assigned var x unused, unused argument x, unused-vars.ts
//                           declared var x unused (+ declaration errors)
//   CheckDeprecatedBuiltins deprecated built-in function calls …      index.ts (below)
//
// The first four precede every regent pass (none of OPA's earlier stages has an
// error regent reports in a pass); the last runs after type and recursion checks.
import type { CallTerm, Expr, Module, Term } from '../ast/nodes.js';
import { refName } from '../ast/transform.js';
import { kindOf, walk } from '../ast/walk.js';
import { getBuiltin } from '../../runtime/builtins/catalog.js';
import type { CompileState } from '../passes/pass.js';
import { RegoError } from '../source/diagnostics.js';
import { duplicateImportErrors, rootShadowingErrors, unusedImportErrors } from './names.js';
import { unusedVarErrors } from './unused-vars.js';

export { duplicateImportErrors, rootShadowingErrors, unusedImportErrors, unusedVarErrors };

/** OPA's strict-mode stages that run before planning, in OPA's order. */
const SOURCE_STAGES: ((m: Module) => RegoError[])[] = [unusedImportErrors, rootShadowingErrors, duplicateImportErrors, (m) => unusedVarErrors(m, true)];

/**
 * What OPA checks without strict mode, in the same order: root document shadowing
 * and duplicate imports for Rego v1 modules (`c.strict || mod.regoV1Compatible()`),
 * and the always-on RewriteLocalVars errors (`declared var x unused`, `var x
 * referenced above` …) for every module.
 */
const DEFAULT_STAGES: ((m: Module) => RegoError[])[] = [
  (m) => (regoV1Compatible(m) ? rootShadowingErrors(m) : []),
  (m) => (regoV1Compatible(m) ? duplicateImportErrors(m) : []),
  (m) => unusedVarErrors(m, false),
];

function regoV1Compatible(m: Module): boolean {
  return m.regoVersion === 1 || m.imports.some((i) => i.path.kind === 'ref' && i.path.head.kind === 'var' && i.path.head.name === 'rego' && i.path.path.length === 1 && i.path.path[0]!.kind === 'string' && i.path.path[0]!.value === 'v1');
}

/** Modules in file-name order (OPA compiles its module map sorted by name). */
function sorted(modules: Module[]): Module[] {
  return [...modules].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/**
 * The strict-mode errors of parsed modules that OPA reports before type checking:
 * those of the first stage (unused imports, root document shadowing, duplicate
 * imports, unused locals and arguments) that finds any. Deprecated builtins need
 * resolved references and are checked by `compile(…, { strict: true })`.
 */
export function strictChecks(modules: Module[], strict = true): RegoError[] {
  const ms = sorted(modules);
  for (const stage of strict ? SOURCE_STAGES : DEFAULT_STAGES) {
    const errors = ms.flatMap((m) => stage(m));
    if (errors.length > 0) return errors;
  }
  return [];
}

/** The pass before which each strict stage runs (the source checks see print calls, as OPA's run before it erases them). */
export const STRICT_BEFORE_PASS = { source: 'erase-print', deprecated: 'hoist-invariants' } as const;

/**
 * Called by the pass runner before each pass: pushes the errors of the stages
 * that belong before `passName` (the strict-mode ones only with `opts.strict`).
 */
export function runStrictStage(passName: string, state: CompileState): void {
  const strict = state.opts.strict === true;
  if (passName === STRICT_BEFORE_PASS.source) state.errors.push(...strictChecks(state.modules, strict));
  else if (passName === STRICT_BEFORE_PASS.deprecated && strict) state.errors.push(...sorted(state.modules).flatMap(deprecatedBuiltinErrors));
}

/**
 * OPA's CheckDeprecatedBuiltins (after type checking; rego_type_error):
 * `deprecated built-in function calls in expression: any` for every call of a
 * builtin declared deprecated (`any`, `all`, `re_match`, `set_diff`,
 * `net.cidr_overlap`, `cast_*` …). Run on modules after reference resolution, so
 * a package's own function of such a name (now `data.…`) is not reported. The
 * location is the expression for a call written as one, else the call.
 */
export function deprecatedBuiltinErrors(m: Module): RegoError[] {
  const errors: RegoError[] = [];
  const topLevel = new Map<Term, Expr>();
  walk(m, (node) => {
    const kind = kindOf(node);
    if (kind === 'expr') {
      const e = node as Expr;
      if (e.body.type === 'term') topLevel.set(e.body.term, e);
    }
    if (kind !== 'call') return;
    const n = node as CallTerm;
    const name = refName(n.op);
    if (!name || name.startsWith('data.') || getBuiltin(name)?.decl.deprecated !== true) return;
    const loc = topLevel.get(n)?.loc ?? n.op.loc;
    errors.push(new RegoError('rego_type_error', `deprecated built-in function calls in expression: ${name}`, loc));
  });
  return errors;
}
