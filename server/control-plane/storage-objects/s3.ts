// Amazon S3 (and S3-compatible servers via `url`, path-style). HEAD the object
// and skip when its `sha256` metadata equals the bundle digest; otherwise PUT
// with metadata `sha256` and `revision`. Credentials: an `aws_auth` secret
// {access_key_id, secret_access_key, session_token?} or the SDK's default chain.
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { SecretValue } from '../contract.js';
import { PushError, messageOf } from '../builder/errors.js';
import type { ObjectStore, UploadMeta } from './index.js';

export interface S3Location {
  bucket: string;
  key: string;
  region?: string;
  url?: string;
}

export function s3Client(loc: S3Location, secret: SecretValue | undefined): S3Client {
  // The SDK's NodeVersionSupportWarning (about SDK releases after the pinned one
  // needing Node 22) would land in `control-plane build` output; set the SDK's
  // own switch unless the environment already decides.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (secret && secret.type !== 'aws_auth') throw new PushError(`object storage: unsupported secret type "${secret.type}" for s3`);
  const s = (k: string): string => (typeof secret?.[k] === 'string' ? (secret[k] as string) : '');
  return new S3Client({
    region: loc.region || 'us-east-1',
    ...(loc.url ? { endpoint: loc.url, forcePathStyle: true } : {}),
    ...(secret
      ? { credentials: { accessKeyId: s('access_key_id'), secretAccessKey: s('secret_access_key'), sessionToken: s('session_token') || undefined } }
      : {}),
  });
}

export class S3Store implements ObjectStore {
  readonly location: string;
  private readonly client: S3Client;

  constructor(private readonly loc: S3Location, secret: SecretValue | undefined) {
    if (!loc.bucket || !loc.key) throw new PushError('object storage: amazon s3 bucket and key are required');
    this.client = s3Client(loc, secret);
    this.location = `s3://${loc.bucket}/${loc.key}`;
  }

  async upload(bytes: Uint8Array, meta: UploadMeta): Promise<{ uploaded: boolean }> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.key })).catch((e: unknown) => {
        const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404 || (e as Error).name === 'NotFound') return undefined;
        throw e;
      });
      if (head?.Metadata?.sha256 === meta.sha256) return { uploaded: false };
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.loc.bucket,
          Key: this.loc.key,
          Body: bytes,
          ContentType: 'application/gzip',
          Metadata: { sha256: meta.sha256, ...(meta.revision ? { revision: meta.revision } : {}) },
        }),
      );
      return { uploaded: true };
    } catch (e) {
      throw new PushError(`${this.location}: ${messageOf(e)}`);
    }
  }
}

/** Read one object (S3 datasources). */
export async function getS3Object(loc: S3Location, secret: SecretValue | undefined): Promise<Uint8Array> {
  const client = s3Client(loc, secret);
  try {
    const res = await client.send(new GetObjectCommand({ Bucket: loc.bucket, Key: loc.key }));
    return (await res.Body?.transformToByteArray()) ?? new Uint8Array();
  } finally {
    client.destroy();
  }
}
