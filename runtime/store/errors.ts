// Typed storage errors, with OPA's storage error codes. Their text is
// `<code>: <message>` as OPA prints them (e.g. `storage_not_found_error: /a: document
// does not exist`); the server maps each code to an HTTP status in one place.

export type StorageErrorCode =
  | 'storage_internal_error'
  | 'storage_not_found_error'
  | 'storage_write_conflict_error'
  | 'storage_invalid_patch_error'
  | 'storage_invalid_txn_error';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }

  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** A write under a path owned by an activated bundle (OPA answers 400 for these). */
export class OwnershipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OwnershipError';
  }
}

export function pathText(path: readonly string[]): string {
  return '/' + path.join('/');
}

export function notFound(path: readonly string[]): StorageError {
  return new StorageError('storage_not_found_error', `${pathText(path)}: document does not exist`);
}

export function writeConflict(path: readonly string[]): StorageError {
  return new StorageError('storage_write_conflict_error', pathText(path));
}

export function invalidPatch(message: string): StorageError {
  return new StorageError('storage_invalid_patch_error', message);
}
