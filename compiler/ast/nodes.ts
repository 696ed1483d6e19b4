// The Rego abstract syntax tree. Every node is a plain object with a `kind`
// discriminant and a `loc`. The parser produces it; the compiler passes rewrite it
// (always into fresh nodes, never in place); `print.ts` turns it back into Rego.
//
// Operators are desugared by the parser into calls of OPA's builtin names:
//   x + y  → call plus(x, y)        x == y → call equal(x, y)     x = y  → call eq(x, y)
//   x := y → call assign(x, y)      x in y → internal.member_2     k, v in y → internal.member_3
//   -x (on a non-literal) → call minus(0, x)   x & y → and   x | y → or
import type { RNumber } from '../../runtime/value/number.js';
import type { Location } from '../source/location.js';

export type { Location };

// ---------------------------------------------------------------- terms

export interface NullTerm { kind: 'null'; loc: Location }
export interface BooleanTerm { kind: 'boolean'; value: boolean; loc: Location }
/** `text` is the literal as written, `value` its exact numeric value. */
export interface NumberTerm { kind: 'number'; value: RNumber; text: string; loc: Location }
/** `raw` is true for back-quoted strings (kept for the formatter only). */
export interface StringTerm { kind: 'string'; value: string; raw?: boolean; loc: Location }
/** A variable. `_` wildcards are renamed by the parser to unique `$_N` vars with `wildcard: true`. */
export interface VarTerm { kind: 'var'; name: string; wildcard?: boolean; loc: Location }
/**
 * A reference `head.path[0][1]…`. `head` is a var (`data`, `input`, a local), or a
 * composite/call term (`[1,2][0]`, `f(x).y`). Dotted names become string terms:
 * `a.b[c]` → head var a, path [string "b", var c].
 */
export interface RefTerm { kind: 'ref'; head: Term; path: Term[]; loc: Location }
export interface ArrayTerm { kind: 'array'; items: Term[]; loc: Location }
export interface ObjectTerm { kind: 'object'; entries: [Term, Term][]; loc: Location }
export interface SetTerm { kind: 'set'; items: Term[]; loc: Location }
export interface ArrayComprehension { kind: 'arraycomp'; head: Term; body: Body; loc: Location }
export interface SetComprehension { kind: 'setcomp'; head: Term; body: Body; loc: Location }
export interface ObjectComprehension { kind: 'objectcomp'; key: Term; value: Term; body: Body; loc: Location }
/**
 * A call `op(args…)`. `op` is the function name as a ref or var term: `count`,
 * `data.lib.f`, `io.jwt.decode` (head var io, path ["jwt","decode"]).
 */
export interface CallTerm { kind: 'call'; op: RefTerm | VarTerm; args: Term[]; loc: Location }
/** String interpolation `$"a{x}b"`: literal string chunks and embedded terms, in order. */
export interface TemplateTerm {
  kind: 'template';
  parts: (string | Term)[];
  /** Rare: `with` modifiers of an embedded expression (`$"{x with input as 1}"`), keyed by index in `parts`. */
  withs?: Record<number, With[]>;
  /** Written as a back-quoted (multi-line) template `` $`…` ``. */
  raw?: boolean;
  loc: Location;
}

export type Term =
  | NullTerm
  | BooleanTerm
  | NumberTerm
  | StringTerm
  | VarTerm
  | RefTerm
  | ArrayTerm
  | ObjectTerm
  | SetTerm
  | ArrayComprehension
  | SetComprehension
  | ObjectComprehension
  | CallTerm
  | TemplateTerm;

export type ScalarTerm = NullTerm | BooleanTerm | NumberTerm | StringTerm;

// ---------------------------------------------------------------- expressions

/** `with target as value` attached to an expression. `target` is a ref or var term. */
export interface With { kind: 'with'; target: RefTerm | VarTerm; value: Term; loc: Location }

/** A plain expression: a term, usually a call (`x == 1`, `f(x)`, `x := 1`) or a ref. */
export interface TermExpr { type: 'term'; term: Term }
/** `some x, y` (declaration only). */
export interface SomeDecl { type: 'some'; vars: VarTerm[] }
/** `some v in coll` / `some k, v in coll`. `key`/`value` may be any term (patterns). */
export interface SomeIn { type: 'somein'; key?: Term; value: Term; collection: Term }
/** `every v in domain { body }` / `every k, v in domain { body }`. */
export interface Every { type: 'every'; key?: VarTerm; value: VarTerm; domain: Term; body: Body }

export type ExprBody = TermExpr | SomeDecl | SomeIn | Every;

export interface Expr {
  kind: 'expr';
  /** True for `not expr`. */
  negated: boolean;
  body: ExprBody;
  /**
   * `not { a; b }` (only with `import future.keywords.not` / `import rego.v2`): the
   * negated conjunction. When set, `negated` is true and `body` is a placeholder
   * term `true`; the expression succeeds iff `notBody` has no solution.
   */
  notBody?: Body;
  with: With[];
  /**
   * `not` negates the whole expression, operands included: modules that import
   * `future.keywords.not` or `rego.v2`. Otherwise (OPA's classic rewriting) ref and
   * call operands are evaluated before the negation, so an undefined operand makes
   * the expression undefined rather than true.
   */
  wholeNegation?: boolean;
  loc: Location;
}

/** A rule body or query: expressions joined by `;` or newlines. */
export type Body = Expr[];

// ---------------------------------------------------------------- rules

/**
 * A rule head. `ref` is the rule's name and path relative to the package:
 *   p := 1              → ref [var p]                   value 1
 *   a.b.c := 1          → ref [var a, string b, string c] value 1
 *   a.b[x] := y         → ref [var a, string b, var x]   value y
 *   p contains x        → ref [var p]                   key x   (multi-value / partial set)
 *   f(x) := y           → ref [var f], args [x]         value y
 *   p if { … }          → ref [var p]                   value absent (true implied)
 * v0 only: `p[x] { … }` is a partial set (key x); `p[k] = v { … }` a partial object.
 */
export interface RuleHead {
  ref: Term[];
  args?: Term[];
  key?: Term;
  value?: Term;
  /** `:=` rather than `=`. */
  assign: boolean;
  /** `contains` (v1) or v0 `p[x]` with no value: a multi-value (set) rule. */
  contains: boolean;
  loc: Location;
}

export interface Rule {
  kind: 'rule';
  default: boolean;
  head: RuleHead;
  body: Body;
  /** The next rule in an `else` chain. Its head shares the ref and args. */
  else?: Rule;
  annotations?: Annotation[];
  loc: Location;
}

// ---------------------------------------------------------------- modules

export interface Package { kind: 'package'; path: Term[]; loc: Location }

/** `import data.x.y as z`, `import input.a`, `import rego.v1`, `import future.keywords.in`. */
export interface Import { kind: 'import'; path: RefTerm | VarTerm; alias?: string; loc: Location }

export interface Comment { text: string; loc: Location }

/** A `# METADATA` block, its YAML parsed. Unknown keys are kept in `custom`-like `extra`. */
export interface Annotation {
  kind: 'annotation';
  scope?: 'rule' | 'document' | 'package' | 'subpackages';
  title?: string;
  description?: string;
  entrypoint?: boolean;
  organizations?: string[];
  related_resources?: { ref: string; description?: string }[];
  authors?: { name?: string; email?: string }[];
  schemas?: { path: string; schema?: unknown; definition?: unknown }[];
  custom?: Record<string, unknown>;
  /** OPA ≥ 1.9's `compile:` block (`unknowns`, `mask_rule`), read by the data-filter API (compiler/filters). */
  compile?: Record<string, unknown>;
  loc: Location;
}

export interface Module {
  kind: 'module';
  file: string;
  package: Package;
  imports: Import[];
  rules: Rule[];
  annotations: Annotation[];
  comments: Comment[];
  /** 1 for Rego v1 (default), 0 when parsed with v0 compatibility. */
  regoVersion: 0 | 1;
}

export type Node = Term | Expr | With | Rule | RuleHead | Module | Package | Import;
