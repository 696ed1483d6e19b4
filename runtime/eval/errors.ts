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
    const l = this.location;
    const prefix = l ? `${l.file ? l.file + ':' : ''}${l.row}: ` : '';
    return `${prefix}${this.code}: ${this.message}`;
  }

  toJSON(): { code: string; message: string; location?: { file: string; row: number; col: number } } {
    const l = this.location;
    return { code: this.code, message: this.message, ...(l ? { location: { file: l.file, row: l.row, col: l.col } } : {}) };
  }
}
