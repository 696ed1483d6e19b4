// Azure Blob Storage. Skip when the blob's metadata `sha256` equals the bundle
// digest (OCP always uploads; skipping keeps ETags stable for downloaders);
// otherwise upload with metadata `sha256` and `revision`. Credentials: an
// `azure_auth` secret {account_name, account_key} (shared key); without one the
// account_url must carry a SAS token.
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import type { SecretValue } from '../contract.js';
import { PushError, messageOf } from '../builder/errors.js';
import type { ObjectStore, UploadMeta } from './index.js';

export interface AzureLocation {
  account_url: string;
  container: string;
  path: string;
}

export class AzureStore implements ObjectStore {
  readonly location: string;
  private readonly service: BlobServiceClient;

  constructor(private readonly loc: AzureLocation, secret: SecretValue | undefined) {
    if (!loc.account_url || !loc.container || !loc.path) throw new PushError('object storage: azure account_url, container and path are required');
    if (secret) {
      if (secret.type !== 'azure_auth') throw new PushError(`object storage: unsupported secret type "${secret.type}" for azure`);
      const cred = new StorageSharedKeyCredential(String(secret.account_name ?? ''), String(secret.account_key ?? ''));
      this.service = new BlobServiceClient(loc.account_url, cred);
    } else {
      this.service = new BlobServiceClient(loc.account_url);
    }
    this.location = `${loc.account_url.replace(/\?.*$/, '').replace(/\/$/, '')}/${loc.container}/${loc.path}`;
  }

  async upload(bytes: Uint8Array, meta: UploadMeta): Promise<{ uploaded: boolean }> {
    const blob = this.service.getContainerClient(this.loc.container).getBlockBlobClient(this.loc.path);
    try {
      const props = await blob.getProperties().catch((e: unknown) => {
        if ((e as { statusCode?: number }).statusCode === 404) return undefined;
        throw e;
      });
      if (props?.metadata?.sha256 === meta.sha256) return { uploaded: false };
      await blob.uploadData(Buffer.from(bytes), {
        blobHTTPHeaders: { blobContentType: 'application/gzip' },
        metadata: { sha256: meta.sha256, ...(meta.revision ? { revision: meta.revision } : {}) },
      });
      return { uploaded: true };
    } catch (e) {
      throw new PushError(`${this.location}: ${messageOf(e)}`);
    }
  }
}
