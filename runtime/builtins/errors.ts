// Errors a builtin may raise. The registry turns them into evaluation errors:
// OperandTypeError → eval_type_error, BuiltinError → eval_builtin_error. In
// non-strict mode both become "undefined", except HaltError, which always stops
// evaluation (as OPA's topdown.Halt).
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';

export class BuiltinError extends Error {
  readonly code: 'eval_builtin_error' | 'eval_type_error' = 'eval_builtin_error';
  /** When true, the message is used as is, without the `name: ` prefix. */
  raw = false;
  constructor(message: string, opts?: { raw?: boolean }) {
    super(message);
    this.name = 'BuiltinError';
    if (opts?.raw) this.raw = true;
  }
}

export class OperandTypeError extends BuiltinError {
  override readonly code = 'eval_type_error' as const;
  constructor(message: string, opts?: { raw?: boolean }) {
    super(message, opts);
    this.name = 'OperandTypeError';
  }
}

/** An error that propagates even when strict builtin errors are off. */
export class HaltError extends BuiltinError {
  constructor(message: string, opts?: { raw?: boolean }) {
    super(message, opts);
    this.name = 'HaltError';
  }
}

/** `operand N must be EXPECTED but got TYPE` (OPA's wording). N is 1-based. */
export function operandError(pos: number, expected: string, got: Value): OperandTypeError {
  return new OperandTypeError(`operand ${pos} must be ${expected} but got ${typeName(got)}`);
}
