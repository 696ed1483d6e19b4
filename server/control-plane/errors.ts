// Domain errors of the control plane and their HTTP mapping. Storage, config and
// route code throw these sentinel classes; `httpErrorOf` is the ONE place where a
// domain error becomes a status code and an error code of the JSON envelope
// `{code, message}` (control-plane-api.md §7). Anything unrecognised is a 500
// `internal_error` whose message does not echo internals.

/** Base class: every control-plane domain error carries a stable kind. */
export abstract class ControlPlaneError extends Error {
  abstract readonly kind: string;
}

/** A named definition (or status record) does not exist. */
export class NotFound extends ControlPlaneError {
  readonly kind = 'not_found';
}

/** Creating something that must not exist yet. */
export class AlreadyExists extends ControlPlaneError {
  readonly kind = 'already_exists';
}

/** A write conflicts with the stored state. */
export class Conflict extends ControlPlaneError {
  readonly kind = 'conflict';
}

/** A definition refers to a source or secret that does not exist. */
export class InvalidReference extends ControlPlaneError {
  readonly kind = 'invalid_reference';
}

/** A source or secret cannot be deleted while other definitions refer to it. */
export class InUse extends ControlPlaneError {
  readonly kind = 'in_use';
}

/** A request parameter or body is invalid (bad JSON, schema error, name mismatch). */
export class InvalidParameter extends ControlPlaneError {
  readonly kind = 'invalid_parameter';
}

/** Missing or unknown API key. Rendered as plain text, never as JSON. */
export class Unauthorized extends ControlPlaneError {
  readonly kind = 'unauthorized';
  constructor() {
    super('Unauthorized');
  }
}

/** Authenticated caller without the permission for the resource. */
export class Forbidden extends ControlPlaneError {
  readonly kind = 'forbidden';
  constructor(message = 'not authorized') {
    super(message);
  }
}

/** The server is not ready yet (start-up still running). */
export class NotReady extends ControlPlaneError {
  readonly kind = 'not_ready';
  constructor() {
    super('not ready');
  }
}

/** The invalid configuration that stops start-up (message is printed as is). */
export class ConfigError extends ControlPlaneError {
  readonly kind = 'config';
}

export interface HttpError {
  status: number;
  /** Error code of the JSON envelope; absent for the plain-text 401. */
  code?: string;
  message: string;
}

/** Map any thrown value to an HTTP status, code and message. */
export function httpErrorOf(err: unknown): HttpError {
  if (err instanceof Unauthorized) return { status: 401, message: 'Unauthorized' };
  if (err instanceof Forbidden) return { status: 403, code: 'not_authorized', message: err.message };
  if (err instanceof NotFound) return { status: 404, code: 'not_found', message: err.message };
  if (err instanceof InvalidParameter) return { status: 400, code: 'invalid_parameter', message: err.message };
  if (err instanceof AlreadyExists) return { status: 409, code: 'already_exists', message: err.message };
  if (err instanceof Conflict) return { status: 409, code: 'conflict', message: err.message };
  if (err instanceof InUse) return { status: 409, code: 'conflict', message: err.message };
  if (err instanceof InvalidReference) return { status: 422, code: 'invalid_reference', message: err.message };
  if (err instanceof NotReady) return { status: 500, code: 'internal_error', message: err.message };
  const framework = frameworkClientError(err);
  if (framework) return framework;
  return { status: 500, code: 'internal_error', message: 'internal server error' };
}

/**
 * Fastify's own client errors (body too large, bad content, malformed URL):
 * keep their 4xx status, report them as `invalid_parameter`. Their messages never
 * contain body content, so they are safe to return.
 */
function frameworkClientError(err: unknown): HttpError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof e.statusCode !== 'number' || e.statusCode < 400 || e.statusCode >= 500) return undefined;
  if (typeof e.code !== 'string' || !e.code.startsWith('FST_')) return undefined;
  return { status: e.statusCode, code: 'invalid_parameter', message: String(e.message) };
}

/** True for errors that are expected outcomes (4xx), false for server failures. */
export function isClientError(err: unknown): boolean {
  return httpErrorOf(err).status < 500;
}
