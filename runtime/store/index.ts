// Public surface of the document store.
export { MemoryStore, Transaction, applyWrite, readPath, type CommitEvent, type StorePath, type Trigger, type WriteOp } from './memory.js';
export { StorageError, OwnershipError, pathText, type StorageErrorCode } from './errors.js';
export { checkPathScope, pathsOverlap, rootSegments } from './ownership.js';
export { buildDocument, buildDocumentSync, JSONBuildError, type BuildOptions } from './json-builder.js';
export { isLazyObject, materializedCount } from './lazy-object.js';
export { writeDocument } from './json-writer.js';
