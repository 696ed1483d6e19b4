// Google Cloud Storage. Skip when the object's custom metadata `sha256` equals
// the bundle digest; otherwise save with metadata `sha256` and `revision`.
// Credentials: a `gcp_auth` secret with `api_key` or `credentials` (service
// account JSON text), or Application Default Credentials. The client library
// honours STORAGE_EMULATOR_HOST for local emulators.
import { Storage, type StorageOptions } from '@google-cloud/storage';
import type { SecretValue } from '../contract.js';
import { PushError, messageOf } from '../builder/errors.js';
import type { ObjectStore, UploadMeta } from './index.js';

export interface GcsLocation {
  project: string;
  bucket: string;
  object: string;
}

export class GcsStore implements ObjectStore {
  readonly location: string;
  private readonly storage: Storage;

  constructor(private readonly loc: GcsLocation, secret: SecretValue | undefined) {
    if (!loc.project || !loc.bucket || !loc.object) throw new PushError('object storage: gcp project, bucket and object are required');
    const opts: StorageOptions = { projectId: loc.project };
    if (secret) {
      if (secret.type !== 'gcp_auth') throw new PushError(`object storage: unsupported secret type "${secret.type}" for gcp`);
      if (typeof secret.api_key === 'string' && secret.api_key) opts.apiKey = secret.api_key;
      else if (typeof secret.credentials === 'string' && secret.credentials) {
        try {
          opts.credentials = JSON.parse(secret.credentials) as StorageOptions['credentials'];
        } catch (e) {
          throw new PushError(`object storage: gcp credentials: ${messageOf(e)}`);
        }
      }
    }
    this.storage = new Storage(opts);
    this.location = `gs://${loc.bucket}/${loc.object}`;
  }

  async upload(bytes: Uint8Array, meta: UploadMeta): Promise<{ uploaded: boolean }> {
    const file = this.storage.bucket(this.loc.bucket).file(this.loc.object);
    try {
      const [md] = await file.getMetadata().catch((e: unknown) => {
        if ((e as { code?: number }).code === 404) return [undefined];
        throw e;
      });
      if (md?.metadata?.sha256 === meta.sha256) return { uploaded: false };
      await file.save(Buffer.from(bytes), {
        resumable: false,
        contentType: 'application/gzip',
        metadata: { metadata: { sha256: meta.sha256, ...(meta.revision ? { revision: meta.revision } : {}) } },
      });
      return { uploaded: true };
    } catch (e) {
      throw new PushError(`${this.location}: ${messageOf(e)}`);
    }
  }
}
