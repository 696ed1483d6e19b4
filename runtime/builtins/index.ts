// Public surface of the builtins: registry, declarations, errors and context types.
export * from './types.js';
export * from './errors.js';
export * from './args.js';
export { getBuiltin, allBuiltins, allDecls, callBuiltin, registerBuiltins, BuiltinCallError } from './registry.js';
