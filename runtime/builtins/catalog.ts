// Builtin declarations for the compiler: the one builtins module compiler code
// imports. Exposes lookups and the OPA capabilities JSON built from declarations.
import { allDecls, getBuiltin } from './registry.js';
import type { BuiltinDecl } from './types.js';

export { getBuiltin, allDecls };

/** OPA-format capabilities document (builtins section) from our declarations. */
export function capabilities(): { builtins: unknown[] } {
  return {
    builtins: allDecls().map((d: BuiltinDecl) => ({
      name: d.name,
      decl: { type: 'function', args: d.args, ...(d.result ? { result: d.result } : {}), ...(d.variadic ? { variadic: d.variadic } : {}) },
      ...(d.infix ? { infix: d.infix } : {}),
      ...(d.nondeterministic ? { nondeterministic: true } : {}),
      ...(d.relation ? { relation: true } : {}),
    })),
  };
}
