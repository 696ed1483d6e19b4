// Public surface of evaluation support: context, errors, helpers.
export { EvalContext, NO_VALUE, type FunctionOverride, type DataOverride, Memo } from './context.js';
export { EvalError, type EvalErrorCode, type EvalLocation } from './errors.js';
export { dot, dig, setPath, forEachMember, forEachMemberUnordered, templateText, mergeValues } from './ops.js';
export { limits, setEvalLimits, heapAboveCeiling, checkCollectionSize, collectionTooLarge, checkHeap, rangeErrorKind, LimitError, DEFAULT_MAX_COLLECTION_SIZE, DEFAULT_HEAP_FRACTION, type EvalLimits } from './limits.js';
export { runtimeInfo, setRuntimeInfo, currentRuntimeInfo, type RuntimeInfoOptions } from './runtime-info.js';
