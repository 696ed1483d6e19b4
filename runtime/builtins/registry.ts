// The builtin registry: name → {decl, impl}, filled from each namespace's list in
// `all.ts`. `callBuiltin` is the call path, and `builtinFailure` its error policy
// (strict / non-strict, the builtin name prefixed to messages, as OPA does), shared
// with the generated code's direct calls (eval/rules.ts builtinFailed).
import type { Value } from '../value/value.js';
import type { BuiltinContext, BuiltinDecl, BuiltinDef } from './types.js';
import { BuiltinError, HaltError } from './errors.js';
import { ALL_BUILTINS } from './all.js';
import { ARG_NAMES } from './arg-names.js';

const registry = new Map<string, BuiltinDef>();

export function registerBuiltins(defs: readonly BuiltinDef[]): void {
  for (const def of defs) {
    if (registry.has(def.decl.name)) throw new Error(`builtin ${def.decl.name} registered twice`);
    registry.set(def.decl.name, def);
  }
}

for (const list of ALL_BUILTINS) registerBuiltins(list);
// The names OPA's declarations give arguments and results, for type errors' `want:` lines.
for (const [name, names] of Object.entries(ARG_NAMES)) {
  const decl = registry.get(name)?.decl;
  if (decl) Object.assign(decl, { argNames: names.args, resultName: names.result });
}

export function getBuiltin(name: string): BuiltinDef | undefined {
  return registry.get(name);
}

export function allBuiltins(): BuiltinDef[] {
  return [...registry.values()].sort((a, b) => (a.decl.name < b.decl.name ? -1 : 1));
}

export function allDecls(): BuiltinDecl[] {
  return allBuiltins().map((d) => d.decl);
}

/** An evaluation error raised by a builtin, ready for the evaluator to locate. */
export class BuiltinCallError extends Error {
  constructor(
    readonly code: 'eval_builtin_error' | 'eval_type_error',
    message: string,
    readonly halt: boolean,
  ) {
    super(message);
    this.name = 'BuiltinCallError';
  }
}

/**
 * Call a builtin. Returns its value, or `undefined` (no result). Errors:
 * in strict mode every BuiltinError becomes a BuiltinCallError; otherwise only
 * HaltErrors do, and the rest make the call undefined. Other exceptions are bugs
 * and propagate unchanged.
 */
export function callBuiltin(def: BuiltinDef, args: Value[], ctx: BuiltinContext): Value | undefined {
  try {
    return def.impl(args, ctx);
  } catch (e) {
    const failure = builtinFailure(def, e, ctx);
    if (failure === undefined) return undefined;
    throw failure;
  }
}

/**
 * What an exception thrown by `def`'s implementation means (callBuiltin's policy):
 * `undefined` when the call just has no result, else the error to throw (a
 * BuiltinCallError, or the exception itself when it is not a BuiltinError).
 */
export function builtinFailure(def: BuiltinDef, e: unknown, ctx: BuiltinContext): unknown {
  if (!(e instanceof BuiltinError)) return e;
  const halt = e instanceof HaltError;
  if (!ctx.strict && !halt) return undefined;
  const message = e.raw ? e.message : `${def.decl.name}: ${e.message}`;
  return new BuiltinCallError(e.code, message, halt);
}
