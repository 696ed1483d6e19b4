// The one place where errors become HTTP responses (OPA's writer.ErrorAuto plus the
// handlers' explicit cases). Every API error body is `{code, message, errors?}`,
// pretty-printed with a trailing newline, as OPA's ErrorV1 is.
import { EvalError, RegoError, RegoErrors, filters } from '../../compiler/index.js';
import { OwnershipError, StorageError } from '../../runtime/index.js';
import { BadRequestError, BundleActivationError, PathConflictError, PolicyCompileError } from '../engine/errors.js';
import { PhaseError } from '../engine/evaluate.js';
import { stringify } from './json.js';

export type ApiErrorCode =
  | 'invalid_parameter'
  | 'invalid_operation'
  | 'resource_not_found'
  | 'resource_conflict'
  | 'undefined_document'
  | 'internal_error'
  | 'unauthorized'
  | 'evaluation_error'
  /** Regent's: 405 replies (Go's mux answers them in plain text). */
  | 'method_not_allowed';

/** OPA's standard messages, word for word. */
export const MSG = {
  compileModules: 'error(s) occurred while compiling module(s)',
  parseQuery: 'error(s) occurred while parsing query',
  compileQuery: 'error(s) occurred while compiling query',
  evalQuery: 'error(s) occurred while evaluating query',
  authzUndefined: 'authorization policy missing or undefined',
  authzRejected: 'request rejected by administrative policy',
  docMissingOrUndefined: 'document missing or undefined',
  bodyTooLarge: 'request body too large',
  gzipBodyTooLarge: 'compressed request body too large',
  /** util.ReadMaybeCompressedBody: the gzip trailer's size (or the output) is above server.decoding.gzip.max_length. */
  gzipPayloadTooLarge: 'gzip payload too large',
} as const;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly errors?: unknown[],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): string {
    return stringify({ code: this.code, message: this.message, ...(this.errors ? { errors: this.errors } : {}) }, true);
  }
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'invalid_parameter', message);
}

function regoErrorList(e: unknown): unknown[] {
  if (e instanceof RegoErrors) return e.errors.map((x) => x.toJSON());
  if (e instanceof RegoError) return [e.toJSON()];
  return [];
}

/**
 * Which API raised a query error: the ad-hoc Query API answers parse/compile
 * errors with 400; the Data API lets them fall through to 500 (as OPA does).
 */
export type ErrorContext = 'data' | 'query';

/** Map any error to its HTTP status, code and message. */
export function toApiError(e: unknown, context: ErrorContext = 'data'): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof BadRequestError || e instanceof OwnershipError || e instanceof BundleActivationError) return badRequest(e.message);
  if (e instanceof PolicyCompileError) {
    return new ApiError(400, e.operation === 'delete' ? 'invalid_operation' : 'invalid_parameter', MSG.compileModules, e.errors.map((x) => x.toJSON()));
  }
  if (e instanceof PathConflictError) return badRequest(e.message);
  if (e instanceof PhaseError) {
    if (e.phase === 'eval') return toApiError(e.inner, context);
    if (context === 'query') return new ApiError(400, 'invalid_parameter', e.phase === 'parse' ? MSG.parseQuery : MSG.compileQuery, regoErrorList(e.inner));
    return new ApiError(500, 'internal_error', e.inner instanceof Error ? e.inner.message : String(e.inner));
  }
  if (e instanceof EvalError) return new ApiError(500, 'internal_error', MSG.evalQuery, [e.toJSON()]);
  // Data filters (api/compile-filters.ts): fragment-check and annotation errors are the request's; the rest (targets, mappings, translation) OPA's generic 500.
  if (e instanceof filters.FilterASTErrors) return new ApiError(400, 'evaluation_error', MSG.evalQuery, e.errors.map((x) => x.toJSON()));
  if (e instanceof filters.FilterError) return new ApiError(500, 'internal_error', e.message);
  if (e instanceof StorageError) {
    const text = `${e.code}: ${e.message}`;
    switch (e.code) {
      case 'storage_write_conflict_error':
        return new ApiError(404, 'resource_conflict', text);
      case 'storage_not_found_error':
        return new ApiError(404, 'resource_not_found', text);
      case 'storage_invalid_patch_error':
        return badRequest(text);
      default:
        return new ApiError(500, 'internal_error', text);
    }
  }
  const fastifyCode = (e as { code?: unknown } | null)?.code;
  if (fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE') return badRequest(MSG.bodyTooLarge);
  if (typeof fastifyCode === 'string' && fastifyCode.startsWith('FST_ERR_CTP')) return badRequest((e as Error).message);
  // Other client errors of the HTTP layer (Fastify's FST_ERR_BAD_URL, …) keep their status.
  const status = (e as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code: ApiErrorCode = status === 404 ? 'resource_not_found' : status === 405 ? 'method_not_allowed' : status === 401 ? 'unauthorized' : 'invalid_parameter';
    return new ApiError(status, code, e instanceof Error ? e.message : String(e));
  }
  return new ApiError(500, 'internal_error', e instanceof Error ? e.message : String(e));
}
