// Errors of OPA's CheckUndefinedFuncs stage for calls the planner meets: arity
// mismatches, with OPA's wording for user functions and builtins.
import type { Term } from '../ast/nodes.js';
import type { BuiltinDecl } from '../../runtime/builtins/types.js';
import { RegoError } from '../source/diagnostics.js';
import { ArgErrDetail, literalType } from '../passes/type-text.js';

/**
 * OPA's arityMismatchError (checkUndefinedFuncs): a user function's is
 * `function data.p.f has arity 1, got 3 arguments`; a builtin's lists the argument
 * types it has (a nested call's output variable as `???`) and the parameters it wants:
 * `count: arity mismatch`, with the details `have: (number, number, ???)` and
 * `want: (collection: any<…>)`.
 * `statement`: the call is a body expression of its own (no output variable).
 */
export function arityError(name: string, call: Term & { kind: 'call' }, want: number, statement: boolean, decl: BuiltinDecl | undefined): RegoError {
  const got = call.args.length;
  if (!decl) return new RegoError('rego_type_error', `function ${name} has arity ${want}, got ${got} argument${got === 1 ? '' : 's'}`, call.loc);
  const have = [...call.args.map(literalType), ...(statement ? [] : [undefined])];
  return new RegoError('rego_type_error', `${name}: arity mismatch`, call.loc, new ArgErrDetail(have, decl, false));
}
