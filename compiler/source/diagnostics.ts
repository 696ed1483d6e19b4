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

/**
 * OPA's ErrorDetails: what an error prints after its message, one line each (a parse
 * error's source line and caret, a type error's `have:`/`want:`). The object's own
 * enumerable fields are its JSON form (`details` in API and `--format json` output).
 */
export interface ErrorDetails {
  detailLines(): string[];
}

/** True for an object with OPA's detail lines. */
export function hasDetailLines(x: unknown): x is ErrorDetails {
  return !!x && typeof x === 'object' && typeof (x as { detailLines?: unknown }).detailLines === 'function';
}

export class RegoError extends Error {
  constructor(
    readonly code: CompileErrorCode,
    message: string,
    public location?: Location,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = 'RegoError';
  }

  /** Attach a location unless one is already known (innermost wins). */
  at(location: Location | undefined): this {
    if (!this.location && location) this.location = location;
    return this;
  }

  /** OPA's ast.Error.Error(): `file:row: code: message`, then each detail line after a tab. */
  override toString(): string {
    const lines = this.details ? this.details.detailLines().map((x) => '\n\t' + x).join('') : '';
    return errorLine(this.code, this.message, this.location) + lines;
  }

  toJSON(): ErrorJSON {
    return errorJSON(this.code, this.message, this.location, this.details);
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
