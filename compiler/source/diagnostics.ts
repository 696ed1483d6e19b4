// Typed compile-time errors. Every error has an OPA error code, a message and a
// location; locations may be attached late (`at`) as the error travels outwards.
import type { Location } from './location.js';
import { errorJSON, errorLine, type ErrorJSON } from '../../runtime/eval/errors.js';

export type CompileErrorCode =
  | 'rego_parse_error'
  | 'rego_compile_error'
  | 'rego_type_error'
  | 'rego_unsafe_var_error'
  | 'rego_recursion_error';

export class RegoError extends Error {
  constructor(
    readonly code: CompileErrorCode,
    message: string,
    public location?: Location,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'RegoError';
  }

  /** Attach a location unless one is already known (innermost wins). */
  at(location: Location | undefined): this {
    if (!this.location && location) this.location = location;
    return this;
  }

  /** OPA's one-line form: `file:row: code: message`. */
  override toString(): string {
    return errorLine(this.code, this.message, this.location);
  }

  toJSON(): ErrorJSON {
    return errorJSON(this.code, this.message, this.location);
  }
}

/** Several errors reported together (OPA reports all compile errors at once). */
export class RegoErrors extends Error {
  constructor(readonly errors: RegoError[]) {
    super(errors.length === 1 ? errors[0]!.toString() : `${errors.length} errors occurred:\n${errors.map(String).join('\n')}`);
    this.name = 'RegoErrors';
  }
}

/** Throw `errors`, if any: one as itself, several as RegoErrors. */
export function throwErrors(errors: RegoError[]): void {
  if (errors.length === 1) throw errors[0]!;
  if (errors.length > 1) throw new RegoErrors(errors);
}

export function parseError(message: string, location?: Location): RegoError {
  return new RegoError('rego_parse_error', message, location);
}

export function compileError(message: string, location?: Location): RegoError {
  return new RegoError('rego_compile_error', message, location);
}
