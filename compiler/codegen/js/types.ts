// Shapes of the closures the JS back end builds.
import type { Value } from '../../../runtime/value/value.js';
import type { EvalContext } from '../../../runtime/eval/context.js';

/** A frame: one slot per local variable of a rule body or query. */
export type Slots = (Value | undefined)[];
/** A continuation: run the rest of a body; return true to stop enumerating. */
export type K = (f: Slots, c: EvalContext) => boolean;
/** An expression: a value, or undefined. */
export type E = (f: Slots, c: EvalContext) => Value | undefined;
/** A pattern: match a value, binding slots; false when it does not match. */
export type P = (v: Value, f: Slots, c: EvalContext) => boolean;
