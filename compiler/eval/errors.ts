// Evaluation errors live in the runtime; the compiler re-exports them.
export { EvalError } from '../../runtime/eval/errors.js';
