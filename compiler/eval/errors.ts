// Evaluation errors (eval_*), each with OPA's code, message and a location.
import type { Location } from '../source/location.js';
import type { EvalErrorShape } from '../api.js';

export class EvalError extends Error implements EvalErrorShape {
  constructor(
    readonly code: EvalErrorShape['code'],
    message: string,
    public location?: Location,
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
