// Domain errors raised by the engine. server/api/errors.ts maps each of them (and
// the compiler, runtime and store errors) to an HTTP status and OPA's error body.
import type { RegoError } from '../../compiler/index.js';

/** A request the server rejects as malformed (OPA's BadRequestErr → 400 invalid_parameter). */
export class BadRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadRequestError';
  }
}

/**
 * The module set does not parse or compile. `operation` says what was attempted:
 * 'put' (400 invalid_parameter) or 'delete' (400 invalid_operation).
 */
export class PolicyCompileError extends Error {
  constructor(
    readonly errors: RegoError[],
    readonly operation: 'put' | 'delete' = 'put',
  ) {
    super('error(s) occurred while compiling module(s)');
    this.name = 'PolicyCompileError';
  }
}

/** Base data overlaps a rule's path (OPA's path-conflict check, 400 invalid_parameter). */
export class PathConflictError extends Error {
  constructor(readonly errors: RegoError[]) {
    const n = errors.length;
    super(`${n} error${n === 1 ? '' : 's'} occurred: ${errors.map(String).join('\n')}`);
    this.name = 'PathConflictError';
  }
}

/** A bundle failed validation before activation. */
export class BundleActivationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleActivationError';
  }
}
