// The public surface of the runtime: values, builtins, X.509 documents (Go's
// JSON of certificates), evaluation support, bundles and the store. The server
// imports the runtime only through this file.
export * from './value/index.js';
export * as builtins from './builtins/index.js';
export * as x509 from './x509/index.js';
export { capabilities } from './builtins/catalog.js';
export * from './eval/index.js';
export { RUNTIME, type RuntimeScope } from './scope.js';
export * from './bundles/index.js';
export * from './store/index.js';
