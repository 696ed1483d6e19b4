// The `with` target checks of OPA's compiler (v1/ast/compile.go validateWith and
// validateWithBuiltinTarget, its RewriteWithValues stage), with OPA's codes and
// messages:
//   - `with data.a.b.c as …` must not reach inside a rule: a prefix of the target
//     (`data.a`, `data.a.b`) that holds rules is a compile error;
//   - a builtin target must not be `eq` or `rego.metadata.chain`/`rule`, an
//     `internal.` function, a relation (`walk`) or a function without a result
//     (`print`);
//   - a target that is neither input, data nor a function is a type error.
import type { Term } from '../ast/nodes.js';
import { RegoError } from '../source/diagnostics.js';
import type { PlanContext } from './context.js';

const BUILTIN = 'with keyword replacing built-in function';

/** Throws OPA's error for a `with data.…` target that replaces part of a rule's value. */
export function checkDataTarget(path: string[], target: Term, ctx: PlanContext): void {
  // path is ['data', …]: every proper prefix below data, as OPA walks the rule tree.
  for (let end = 2; end < path.length; end++) {
    if (ctx.groupAt(path.slice(1, end)) !== undefined) {
      throw new RegoError('rego_compile_error', 'with keyword cannot partially replace virtual document(s)', target.loc);
    }
  }
}

/** Throws OPA's error for a builtin `with` target that may not be replaced. */
export function checkBuiltinTarget(name: string, target: Term, ctx: PlanContext): void {
  const error = (message: string) => new RegoError('rego_compile_error', `${BUILTIN}: ${message}`, target.loc);
  if (name === 'eq' || name === 'rego.metadata.chain' || name === 'rego.metadata.rule') throw error(`replacement of ${JSON.stringify(name)} invalid`);
  if (name.startsWith('internal.')) throw error(`replacement of internal function ${JSON.stringify(name)} invalid`);
  if (name === 'print') throw error('target must not be a void function');
  const decl = ctx.builtinDecl(name);
  if (decl?.relation) throw error('target must not be a relation');
  if (decl && decl.result === undefined) throw error('target must not be a void function');
}

/** OPA's error for a target that names nothing replaceable. */
export function unknownTargetError(target: Term): RegoError {
  return new RegoError('rego_type_error', 'with keyword target must reference existing input, data, or a function', target.loc);
}
