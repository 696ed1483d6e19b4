// Public surface of the value model.
export * from './value.js';
export * from './number.js';
export { RObject, RSet, keyOf } from './collections.js';
export { compare, compareStrings, equal } from './compare.js';
export { canonicalKey } from './key.js';
export { fromJS, toJS, toJSONText, parseJSON, INEXACT_NUMBER, type JSONValue } from './json.js';
export { JSONSyntaxError } from './json-parse.js';
export { GO_MAX_NESTING_DEPTH, goEscapeHTML, goJSONCheckValid, goJSONDecode, goJSONError, goJSONValid, nestingDepth, type GoJSONMode, type GoJSONOutcome } from './go-json.js';
export { formatTerm, formatPlain, dataRefText } from './format.js';
export { EXCESSIVE_ALIASING, YAMLLimitError, allowedAliasRatio, checkYAMLDocument } from './yaml-limits.js';
