// The intermediate representation: what the planner produces from the checked AST
// and what every back end consumes (JS closures today; Wasm, partial evaluation and
// the reference interpreter read the same structures).
//
// A body is a Block: an ordered list of statements over numbered local slots. The
// planner has already ordered statements for safety, so every statement knows
// statically which slots are bound: `let` and patterns bind, everything else reads.
// A statement may fail (no solution) or produce several solutions (`scan`); the
// remaining statements run once per solution (backtracking).
import type { Value } from '../../runtime/value/value.js';
import type { Location } from '../source/location.js';
import type { Expr as AstExpr, Rule as AstRule } from '../ast/nodes.js';

// ---------------------------------------------------------------- expressions
// Expressions compute one value from bound slots, or are undefined (the statement
// that uses them fails). They never iterate.

export type Expr =
  | { k: 'const'; value: Value }
  | { k: 'local'; slot: number }
  | { k: 'input' }
  /** The base document at a fixed path (no rules live at or below it). */
  | { k: 'base'; path: (string | number)[] }
  /** The value of a rule group (complete, set or object rules). */
  | { k: 'rule'; group: number }
  /** The virtual document at a tree node: base data merged with the rules below. */
  | { k: 'vdoc'; node: number }
  /** `data.<node>[key]` with a key computed at run time: only that child is evaluated. */
  | { k: 'vdocdot'; node: number; key: Expr }
  /** `base[key]`; undefined when absent. */
  | { k: 'dot'; base: Expr; key: Expr }
  /** A builtin call. */
  | { k: 'call'; name: string; args: Expr[]; loc: Location; opLoc?: Location }
  /** A user function call (a function rule group). `opLoc`: the operator's location (residuals of partial evaluation). */
  | { k: 'callfn'; group: number; args: Expr[]; loc: Location; opLoc?: Location }
  | { k: 'array'; items: Expr[] }
  | { k: 'set'; items: Expr[] }
  | { k: 'object'; entries: [Expr, Expr][]; loc: Location }
  /** A comprehension: run `body`, collect `head` (and `key` for objects) per solution. */
  | { k: 'compr'; kind: 'array' | 'set' | 'object'; body: Block; head: Expr; key?: Expr; loc: Location; index?: ComprehensionIndex }
  /** String interpolation. */
  | { k: 'template'; parts: (string | Expr)[] };

// ---------------------------------------------------------------- patterns
// Patterns destructure a value, binding unbound slots and checking the rest.

export type Pattern =
  /** `wildcard`: the slot is a `_` of the source, which nothing reads. */
  | { k: 'bind'; slot: number; wildcard?: true }
  | { k: 'wild' }
  | { k: 'value'; expr: Expr }
  | { k: 'array'; items: Pattern[] }
  | { k: 'object'; entries: [Expr, Pattern][] };

// ---------------------------------------------------------------- statements

type StmtBase =
  /** Bind a slot to a value; fails when the value is undefined. */
  | { k: 'let'; slot: number; expr: Expr }
  /** Fails when the value is undefined or `false`. */
  | { k: 'test'; expr: Expr }
  /** Fails when the two values are not equal (or either is undefined). */
  | { k: 'equal'; a: Expr; b: Expr }
  /** Destructure a value against a pattern. */
  | { k: 'match'; pattern: Pattern; expr: Expr }
  /** Iterate a collection: arrays (index, value), objects (key, value), sets (value, value). */
  | { k: 'scan'; source: Expr; key: Pattern; value: Pattern; loc: Location }
  /** A relation builtin (walk): iterate over its results, matching each against `out`. */
  | { k: 'relation'; name: string; args: Expr[]; out: Pattern; loc: Location }
  /** Succeeds when `body` has no solution. */
  | { k: 'not'; body: Block }
  /** Succeeds when `body` holds for every member of `domain`. */
  | { k: 'every'; domain: Expr; key: Pattern; value: Pattern; body: Block; loc: Location }
  /** Run `body` with input, data or functions replaced. */
  | { k: 'with'; mods: WithMod[]; body: Block; loc: Location }
  /** Record the value of a top-level query expression (for result rows). */
  | { k: 'capture'; slot: number; expr: Expr }
  /** `print(...)`: formats its arguments (undefined ones too) and emits them. */
  | { k: 'print'; args: Expr[]; loc: Location };

/**
 * The source of a statement: the first statement planned for each body
 * expression carries that expression (`src`), for traces and explanations.
 */
export type Stmt = StmtBase & { src?: AstExpr };

export type Block = Stmt[];

export type WithMod =
  | { k: 'input'; path: string[]; value: Expr }
  | { k: 'data'; path: string[]; value: Expr }
  /** Replace a builtin or a user function by a value or by another function. */
  | { k: 'function'; name: string; value: Expr | { k: 'fnref'; name: string; group?: number } };

// ---------------------------------------------------------------- rules

export type GroupKind = 'complete' | 'set' | 'object' | 'function';

/** One rule definition (or else branch) inside a group. */
export interface RuleDef {
  /** Function parameters, matched against call arguments. */
  params: Pattern[];
  body: Block;
  /** Keys below the group's node, for ref heads like `a.b[x].c := v` (empty otherwise). */
  keys: Expr[];
  /** The produced value (complete/object/function) or member (set). */
  value: Expr;
  /** The next branch of an else chain. */
  else?: RuleDef;
  frameSize: number;
  /** The source name of each slot (generated ones start with `$`), for partial evaluation's residual vars. */
  names?: string[];
  loc: Location;
  /** The rule this definition was planned from (for traces). */
  src?: AstRule;
}

/**
 * An indexed comprehension (pass `comprehension-index`, OPA's comprehension indexing):
 * the back ends that honour it (generated JS, closures, the interpreter) evaluate
 * `pairs` once per evaluation context, in a fresh frame of `frameSize` slots, and look
 * the values of `keys` up among its `[[key values…], member]` pairs
 * (runtime/eval/compr-index.ts); the others evaluate the comprehension as written.
 */
export interface ComprehensionIndex {
  /** The policy-wide number of the table in an evaluation context. */
  id: number;
  /** The outer variables the comprehension keys on (locals of the enclosing body). */
  keys: Expr[];
  /** An array comprehension of `[[key values…], member]`, free of outer variables. */
  pairs: Expr;
  frameSize: number;
}

/**
 * A rule index (pass `rule-index`): definitions whose body tests `ref == constant`
 * (or `ref = constant`) at its top level, by constant; `always` lists the definitions
 * every evaluation must run.
 */
export interface RuleIndex {
  ref: Expr;
  entries: { key: Value; defs: number[] }[];
  always: number[];
  /** Per definition: the position in its body of the indexed test (-1 for those in `always`). */
  at: number[];
}

export interface RuleGroup {
  id: number;
  kind: GroupKind;
  /** The node path under data, e.g. ['test', 'p']. */
  path: string[];
  defs: RuleDef[];
  /** Value of a `default` rule. */
  default?: Value;
  defaultLoc?: Location;
  /** Object groups from `contains` rules: each leaf is a set. */
  leafSet?: boolean;
  /** Function arity. */
  arity?: number;
  /** The tree node this group lives at. */
  node: number;
  /** Definitions by the constant of an equality test in their body (see RuleIndex). */
  index?: RuleIndex;
}

/** A node of the data tree that holds rules at or below it. */
export interface TreeNode {
  id: number;
  path: string[];
  children: Map<string, number>;
  groups: number[];
}

export interface QueryPlan {
  body: Block;
  frameSize: number;
  /** User-visible variables and their slots, in order of appearance. */
  vars: { name: string; slot: number }[];
  /** Per top-level expression: the slot its value is captured in, and its text. */
  exprs: { slot: number; text: string; loc: Location }[];
}

export interface PolicyIR {
  groups: RuleGroup[];
  nodes: TreeNode[];
}
