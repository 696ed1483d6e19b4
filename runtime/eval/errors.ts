// Evaluation errors (eval_*), each with OPA's code, message and a location.
export interface EvalLocation {
  file: string;
  row: number;
  col: number;
  offset?: number;
}

export type EvalErrorCode =
  | 'eval_conflict_error'
  | 'eval_type_error'
  | 'eval_builtin_error'
  | 'eval_with_error'
  | 'eval_cancel_error'
  | 'eval_recursion_error';

export class EvalError extends Error {
  constructor(
    readonly code: EvalErrorCode,
    message: string,
    public location?: EvalLocation,
  ) {
    super(message);
    this.name = 'EvalError';
  }

  override toString(): string {
    return errorLine(this.code, this.message, this.location);
  }

  toJSON(): ErrorJSON {
    return errorJSON(this.code, this.message, this.location);
  }
}

/** The JSON form of an OPA error (compile or evaluation). */
export interface ErrorJSON {
  code: string;
  message: string;
  location?: { file: string; row: number; col: number };
  /** OPA's ErrorDetails (compile errors only): serialised by its own fields. */
  details?: object;
}

/** OPA's one-line form of an error: `file:row: code: message`. */
export function errorLine(code: string, message: string, l: EvalLocation | undefined): string {
  const prefix = l ? `${l.file ? l.file + ':' : ''}${l.row}: ` : '';
  return `${prefix}${code}: ${message}`;
}

export function errorJSON(code: string, message: string, l: EvalLocation | undefined, details?: object): ErrorJSON {
  return { code, message, ...(l ? { location: { file: l.file, row: l.row, col: l.col } } : {}), ...(details ? { details } : {}) };
}
