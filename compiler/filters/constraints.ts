// Filter targets and what each can express (OPA's internal/compile constraints).
// A target is `sql` or `ucast`, a dialect picks the variant: postgresql, mysql,
// sqlserver and sqlite for SQL; all, minimal, prisma and linq for UCAST. Each
// variant allows a set of builtins (the six comparisons, `internal.member_2` and
// the string builtins startswith/endswith/contains) and features (`not`,
// `field-ref`: column against column, `existence-ref`: `input.t.c = _`). Several
// targets requested together (multitarget) are checked as a set: a construct must
// be allowed by every one, and the messages of each refusing target are joined
// with newlines, as Go's errors.Join does.
//
// The errors of the filter pipeline live here too:
//  * FilterASTError / FilterASTErrors: fragment-check and annotation errors, OPA's
//    ast.Error shape (`code`, `message`, `location`, `details: {details}`); the
//    HTTP layer answers them with 400 `evaluation_error`.
//  * FilterError: everything else (unknown target, bad mappings, translation
//    failures); OPA's generic error writer makes them 500 `internal_error`.
import type { Location } from '../source/location.js';

export type FilterTarget = 'sql' | 'ucast';
export type SqlDialect = 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite';
export type UcastDialect = 'all' | 'minimal' | 'prisma' | 'linq';

/** One requested output: `{target: 'sql', dialect: 'postgresql'}`. */
export interface TargetDialect {
  target: string;
  dialect: string;
}

export const SQL_DIALECTS: readonly SqlDialect[] = ['postgresql', 'mysql', 'sqlserver', 'sqlite'];
export const UCAST_DIALECTS: readonly UcastDialect[] = ['all', 'minimal', 'prisma', 'linq'];

const COMPARISONS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte'];
const ALL_BUILTINS = [...COMPARISONS, 'internal.member_2', 'startswith', 'endswith', 'contains'];
const LINQ_BUILTINS = [...COMPARISONS, 'internal.member_2'];

export type Feature = 'not' | 'field-ref' | 'existence-ref';

/** What one target/dialect allows. */
export class Constraint {
  constructor(
    readonly target: string,
    readonly variant: string,
    readonly builtins: ReadonlySet<string>,
    readonly features: ReadonlySet<Feature>,
  ) {}

  /** OPA's name for the target in messages: `SQL (sqlite)`, `UCAST (LINQ)`, `UCAST`. */
  toString(): string {
    return this.variant === '' ? this.target : `${this.target} (${this.variant})`;
  }

  builtinError(name: string): string | undefined {
    return this.builtins.has(name) ? undefined : `unsupported for ${this}`;
  }

  featureError(f: Feature): string | undefined {
    return this.features.has(f) ? undefined : `unsupported feature "${f}" for ${this}`;
  }
}

/** The constraint of one target/dialect; throws FilterError for combinations that do not exist. */
export function constraintFor(target: string, dialect: string): Constraint {
  const upper = target.toUpperCase();
  switch (target) {
    case 'sql': {
      const v = dialect.toLowerCase();
      if (v === 'sqlite') return new Constraint(upper, dialect, new Set(LINQ_BUILTINS), new Set(['not', 'field-ref', 'existence-ref']));
      if (v === 'postgresql' || v === 'mysql' || v === 'sqlserver') return new Constraint(upper, dialect, new Set(ALL_BUILTINS), new Set(['not', 'field-ref', 'existence-ref']));
      throw new FilterError(`unsupported variant for ${target}: ${dialect}`);
    }
    case 'ucast': {
      switch (dialect.toLowerCase()) {
        case 'all':
          return new Constraint(upper, 'all', new Set(ALL_BUILTINS), new Set(['not', 'field-ref']));
        case 'prisma':
          return new Constraint(upper, 'prisma', new Set(ALL_BUILTINS), new Set(['not', 'existence-ref']));
        case 'linq':
          return new Constraint(upper, 'LINQ', new Set(LINQ_BUILTINS), new Set());
        default:
          return new Constraint(upper, '', new Set(COMPARISONS), new Set());
      }
    }
    default:
      throw new FilterError(`unknown target/dialect combination: ${target}/${dialect}`);
  }
}

/** Several constraints applied at once (multitarget): the strictest combination. */
export class ConstraintSet {
  constructor(readonly constraints: Constraint[]) {}

  static of(targets: TargetDialect[]): ConstraintSet {
    return new ConstraintSet(targets.map((t) => constraintFor(t.target, t.dialect)));
  }

  builtinError(name: string): string | undefined {
    return joinErrors(this.constraints.map((c) => c.builtinError(name)));
  }

  featureError(f: Feature): string | undefined {
    return joinErrors(this.constraints.map((c) => c.featureError(f)));
  }
}

function joinErrors(errs: (string | undefined)[]): string | undefined {
  const present = errs.filter((e): e is string => e !== undefined);
  return present.length === 0 ? undefined : present.join('\n');
}

/** The nine vendor media types of the filters endpoint and the target each selects. */
export const MEDIA_TYPES: Record<string, TargetDialect | 'multi'> = {
  'application/vnd.opa.multitarget+json': 'multi',
  'application/vnd.opa.ucast.all+json': { target: 'ucast', dialect: 'all' },
  'application/vnd.opa.ucast.minimal+json': { target: 'ucast', dialect: 'minimal' },
  'application/vnd.opa.ucast.prisma+json': { target: 'ucast', dialect: 'prisma' },
  'application/vnd.opa.ucast.linq+json': { target: 'ucast', dialect: 'linq' },
  'application/vnd.opa.sql.postgresql+json': { target: 'sql', dialect: 'postgresql' },
  'application/vnd.opa.sql.mysql+json': { target: 'sql', dialect: 'mysql' },
  'application/vnd.opa.sql.sqlserver+json': { target: 'sql', dialect: 'sqlserver' },
  'application/vnd.opa.sql.sqlite+json': { target: 'sql', dialect: 'sqlite' },
};

/**
 * `target+dialect` strings of `options.targetDialects` (`sql+postgresql`,
 * `ucast+prisma`). A string without `+` keeps an empty dialect, so the
 * constraint lookup reports it (OPA would index past the split and crash).
 */
export function parseTargetDialects(list: readonly string[]): TargetDialect[] {
  return list.map((s) => {
    const i = s.indexOf('+');
    return i < 0 ? { target: s, dialect: '' } : { target: s.slice(0, i), dialect: s.slice(i + 1).split('+')[0]! };
  });
}

// ---------------------------------------------------------------- errors

export type FilterErrorCode = 'pe_fragment_error' | 'invalid_unknown' | 'invalid_mask_rule';

/** One AST-level error of the filter pipeline, as OPA's ast.Error serializes it. */
export class FilterASTError {
  constructor(
    /** Ours, or a compile error's code passed through (`rego_type_error`, …). */
    readonly code: FilterErrorCode | string,
    readonly message: string,
    readonly location?: Location,
    readonly details?: string,
  ) {}

  toJSON(): Record<string, unknown> {
    const l = this.location;
    return {
      code: this.code,
      message: this.message,
      ...(l ? { location: { file: l.file, row: l.row, col: l.col } } : {}),
      ...(this.details !== undefined ? { details: { details: this.details } } : {}),
    };
  }

  toString(): string {
    const l = this.location;
    return `${l ? `${l.file ? `${l.file}:` : ''}${l.row}: ` : ''}${this.code}: ${this.message}`;
  }
}

/** AST errors found together (every failing expression is reported). HTTP: 400 evaluation_error. */
export class FilterASTErrors extends Error {
  constructor(readonly errors: FilterASTError[]) {
    super(errors.length === 1 ? errors[0]!.toString() : `${errors.length} errors occurred:\n${errors.map(String).join('\n')}`);
    this.name = 'FilterASTErrors';
  }
}

/** A non-AST failure (bad target, mappings, translation). HTTP: 500 internal_error. */
export class FilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterError';
  }
}
