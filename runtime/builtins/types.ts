// Builtin declarations: the types of arguments and results in OPA's capabilities
// JSON shape, plus the implementation signature and the per-query context.
import type { Value } from '../value/value.js';
import { sortedMembers } from './type-order.js';

/** A type in OPA's capabilities format. */
export type TypeSpec =
  | { type: 'any'; of?: TypeSpec[] }
  | { type: 'null' }
  | { type: 'boolean' }
  | { type: 'number' }
  | { type: 'string' }
  | { type: 'array'; static?: TypeSpec[]; dynamic?: TypeSpec }
  | { type: 'set'; of: TypeSpec }
  | { type: 'object'; static?: { key: string; value: TypeSpec }[]; dynamic?: { key: TypeSpec; value: TypeSpec } }
  | { type: 'function'; args: TypeSpec[]; result: TypeSpec; variadic?: TypeSpec };

export interface BuiltinDecl {
  /** Full dotted name, e.g. `strings.replace_n`, or an operator name like `plus`. */
  name: string;
  args: TypeSpec[];
  /** Absent for builtins that produce no value (e.g. `print`, relations). */
  result?: TypeSpec;
  /** For variadic builtins (print): the type of every extra argument. */
  variadic?: TypeSpec;
  /** Infix operator symbol (`+`, `==` …) for operator builtins. */
  infix?: string;
  nondeterministic?: boolean;
  /** Builtins like `walk` that can produce several results per call. */
  relation?: boolean;
  deprecated?: boolean;
  categories?: string[];
  description?: string;
  /** The names OPA's declaration gives the arguments (null: unnamed), for type errors' `want:` lines (arg-names.ts). */
  argNames?: (string | null)[];
  /** The name OPA's declaration gives the result, if any. */
  resultName?: string | null;
}

/** Everything a builtin may need from the evaluation it runs in. */
export interface BuiltinContext {
  /** Strict builtin errors mode (errors are raised instead of undefined). */
  strict: boolean;
  /** Per-query cache for nondeterministic builtins (time.now_ns, rand.intn, http.send). */
  cache: Map<string, unknown>;
  /** Query start time in nanoseconds since the epoch (time.now_ns). */
  nowNs: bigint;
  /** Where `print` output goes. */
  print(message: string): void;
  /** The value `opa.runtime()` returns. */
  runtime: Value;
  /** Deadline (ms since epoch) checked in long loops; undefined = none. */
  deadline?: number;
  /** Call a user function or builtin by name (used by a few higher-order builtins). */
  call?(name: string, args: Value[]): Value | undefined;
  /** Host-supplied hooks, e.g. `trace` (the tracer behind the `trace` builtin). */
  extras: Record<string, unknown>;
}

/**
 * A builtin implementation. Return a value, or `undefined` for "no result".
 * Throw `BuiltinError`/`OperandTypeError` for errors; the registry applies the
 * strict / non-strict policy and prefixes the builtin name to the message.
 * Relation builtins return an array of results (each one a separate solution).
 */
export type BuiltinImpl = (args: Value[], ctx: BuiltinContext) => Value | undefined;

export interface BuiltinDef {
  decl: BuiltinDecl;
  impl: BuiltinImpl;
}

// Shorthands for declarations.
export const T = {
  any: { type: 'any' } as TypeSpec,
  null: { type: 'null' } as TypeSpec,
  boolean: { type: 'boolean' } as TypeSpec,
  number: { type: 'number' } as TypeSpec,
  string: { type: 'string' } as TypeSpec,
  arrayOf: (t: TypeSpec): TypeSpec => ({ type: 'array', dynamic: t }),
  tuple: (...ts: TypeSpec[]): TypeSpec => ({ type: 'array', static: ts }),
  setOf: (t: TypeSpec): TypeSpec => ({ type: 'set', of: t }),
  objectOf: (k: TypeSpec, v: TypeSpec): TypeSpec => ({ type: 'object', dynamic: { key: k, value: v } }),
  /** OPA's NewAny: members kept in OPA's type order (type-order.ts). */
  anyOf: (...ts: TypeSpec[]): TypeSpec => ({ type: 'any', of: sortedMembers(ts) }),
};
