// Typed errors of the bundle pipeline. Each error class maps to one status record
// (phase + status) so the worker reports failures without string matching:
//   ConfigError     → BUILD / BUILD_FAILED   (cycles, missing sources, conflicting pins)
//   SyncError       → SYNC  / SYNC_FAILED or USER_ERROR (git, http, directory reads)
//   TransformError  → TRANSFORM / TRANSFORM_FAILED (transform_query evaluation)
//   BuildError      → BUILD / BUILD_FAILED   (roots, conflicts, compile errors)
//   PushError       → PUSH  / PUSH_FAILED    (object storage)
import type { StatusError } from '../contract.js';

export type Phase = 'SYNC' | 'TRANSFORM' | 'BUILD' | 'PUSH';
export type FailureStatus = 'SYNC_FAILED' | 'USER_ERROR' | 'TRANSFORM_FAILED' | 'BUILD_FAILED' | 'PUSH_FAILED' | 'INTERNAL_ERROR';

export abstract class PipelineError extends Error {
  abstract readonly phase: Phase;
  abstract readonly status: FailureStatus;
  /** The Rego errors behind the message, with file, row and column (stored beside the status record). */
  details?: StatusError[];
}

/** Attach located Rego errors to a pipeline error (returns it, for `throw withDetails(...)`). */
export function withDetails<E extends PipelineError>(e: E, details: StatusError[] | undefined): E {
  if (details && details.length > 0) e.details = details;
  return e;
}

export class ConfigError extends PipelineError {
  readonly phase = 'BUILD';
  readonly status = 'BUILD_FAILED';
  override name = 'ConfigError';
}

export class SyncError extends PipelineError {
  readonly phase = 'SYNC';
  readonly status: FailureStatus;
  override name = 'SyncError';
  /** `userError`: the user's configuration is at fault (4xx, bad credentials, missing repo). */
  constructor(message: string, readonly userError = false) {
    super(message);
    this.status = userError ? 'USER_ERROR' : 'SYNC_FAILED';
  }
}

export class TransformError extends PipelineError {
  readonly phase = 'TRANSFORM';
  readonly status = 'TRANSFORM_FAILED';
  override name = 'TransformError';
}

export class BuildError extends PipelineError {
  readonly phase = 'BUILD';
  readonly status = 'BUILD_FAILED';
  override name = 'BuildError';
}

/** Two sources claim overlapping package or data paths. */
export class PackageConflictError extends BuildError {
  override name = 'PackageConflictError';
  constructor(
    readonly requirement: string,
    readonly conflicting: string,
    readonly others: { root: string; source: string }[],
  ) {
    super(
      [`requirement "${requirement}" contains conflicting package ${conflicting}`]
        .concat(others.map((o) => `- package ${o.root} from "${o.source}"`))
        .join('\n'),
    );
  }
}

export class PushError extends PipelineError {
  readonly phase = 'PUSH';
  readonly status = 'PUSH_FAILED';
  override name = 'PushError';
}

/** The message of any thrown value. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
