// The only public surface of the compiler: parse, compile, evaluate.
export * from './api.js';
export { RegoError, RegoErrors } from './source/diagnostics.js';
export type { Location } from './source/location.js';
export { compile } from './policy.js';
export { EvalError } from './eval/errors.js';
export { parseModule, parseQuery, parseTerm } from './parser/index.js';
