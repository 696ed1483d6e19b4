// Object storage for built bundles. One ObjectStore per bundle (it may keep the
// digest of its last upload). Every store skips the upload when the stored
// object already has the same sha256 (filesystem: the file's content; S3/GCS/
// Azure: the `sha256` metadata written with the object) and reports
// `uploaded: false`, which the worker records as SUCCESS like an upload.
import type { ObjectStorage, SecretValue } from '../contract.js';
import { PushError } from '../builder/errors.js';
import { AzureStore } from './azure.js';
import { FilesystemStore } from './filesystem.js';
import { GcsStore } from './gcs.js';
import { S3Store } from './s3.js';

export interface UploadMeta {
  revision: string;
  /** sha256 hex of the bytes. */
  sha256: string;
}

export interface ObjectStore {
  /** Human-readable location, e.g. `s3://bucket/key`. */
  readonly location: string;
  /** Upload unless the stored object has the same sha256. */
  upload(bytes: Uint8Array, meta: UploadMeta): Promise<{ uploaded: boolean }>;
}

export type SecretResolver = (name: string) => Promise<SecretValue | undefined>;

/** The store for a bundle's object_storage; undefined when none is configured. */
export async function createObjectStore(
  storage: ObjectStorage | undefined,
  secrets: SecretResolver,
  cwd = process.cwd(),
): Promise<ObjectStore | undefined> {
  if (!storage) return undefined;
  const secret = async (name: string | undefined): Promise<SecretValue | undefined> => {
    if (!name) return undefined;
    const v = await secrets(name);
    if (!v || !v.type) throw new PushError(`object storage: secret "${name}" is not configured`);
    return v;
  };
  if (storage.filesystem) return new FilesystemStore(storage.filesystem.path, cwd);
  if (storage.aws) return new S3Store(storage.aws, await secret(storage.aws.credentials));
  if (storage.gcp) return new GcsStore(storage.gcp, await secret(storage.gcp.credentials));
  if (storage.azure) return new AzureStore(storage.azure, await secret(storage.azure.credentials));
  throw new PushError('object storage: unsupported object storage provider');
}

export { AzureStore, FilesystemStore, GcsStore, S3Store };
