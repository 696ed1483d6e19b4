// Object storage against local servers: S3 through s3rver (custom endpoint,
// path style) and Azure Blob through Azurite (shared key of the well-known dev
// account). Both skip the upload when the stored sha256 metadata is unchanged.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeStore } from './fake-store.js';
import { buildOnce, readBack, tempDir } from './helpers.js';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (o: object) => S3rverInstance;

const AZ_ACCOUNT = 'devstoreaccount1';
const AZ_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

let dir: string;
let cleanup: () => Promise<void>;
let s3: S3rverInstance;
let s3url: string;
let azurite: ChildProcess;
let azUrl: string;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('regent-objects-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'bundles' }] });
  s3url = `http://127.0.0.1:${(await s3.run()).port}`;
  const port = await freePort();
  const bin = join(process.cwd(), 'node_modules/.bin/azurite-blob');
  azurite = spawn(bin, ['--blobHost', '127.0.0.1', '--blobPort', String(port), '--inMemoryPersistence', '--disableTelemetry', '--silent', '--skipApiVersionCheck', '--loose'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('azurite did not start')), 20_000);
    azurite.stdout!.on('data', (c: Buffer) => {
      if (c.toString().includes('successfully listens')) {
        clearTimeout(timer);
        resolve();
      }
    });
    azurite.on('exit', (code) => reject(new Error(`azurite exited ${code}`)));
  });
  azUrl = `http://127.0.0.1:${port}/${AZ_ACCOUNT}`;
  const svc = new BlobServiceClient(azUrl, new StorageSharedKeyCredential(AZ_ACCOUNT, AZ_KEY));
  await svc.getContainerClient('bundles').create();
}, 60_000);

afterAll(async () => {
  await s3?.close();
  azurite?.kill();
  await cleanup();
});

function store(objectStorage: object, secrets: Record<string, object>) {
  const s = new FakeStore({ sources: [{ name: 'pushed' }], bundles: [{ name: 'o', requirements: [{ source: 'pushed' }], object_storage: objectStorage as never, revision: 'input.bundle.hash' }], secrets: secrets as never });
  s.putData('pushed', 'cfg', { v: 1 });
  return s;
}

describe('s3 (s3rver)', () => {
  it('uploads with sha256/revision metadata and skips unchanged content', async () => {
    const s = store({ aws: { bucket: 'bundles', key: 'app/bundle.tar.gz', region: 'us-east-1', url: s3url, credentials: 'aws' } }, {
      aws: { type: 'aws_auth', access_key_id: 'S3RVER', secret_access_key: 'S3RVER' },
    });
    const a = await buildOnce(s, 'o', dir);
    expect(a).toMatchObject({ status: 'SUCCESS', phase: 'PUSH', uploaded: true });
    expect((await buildOnce(s, 'o', dir)).uploaded).toBe(false);
    const client = new S3Client({ region: 'us-east-1', endpoint: s3url, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const head = await client.send(new HeadObjectCommand({ Bucket: 'bundles', Key: 'app/bundle.tar.gz' }));
    expect(head.Metadata?.revision).toBe(a.revision);
    s.putData('pushed', 'cfg', { v: 2 });
    expect((await buildOnce(s, 'o', dir)).uploaded).toBe(true);
    const obj = await client.send(new GetObjectCommand({ Bucket: 'bundles', Key: 'app/bundle.tar.gz' }));
    expect((await readBack(await obj.Body!.transformToByteArray())).data).toEqual({ cfg: { v: 2 } });
    client.destroy();
  });

  it('a missing bucket is PUSH_FAILED', async () => {
    const s = store({ aws: { bucket: 'nope', key: 'k', region: 'us-east-1', url: s3url, credentials: 'aws' } }, { aws: { type: 'aws_auth', access_key_id: 'S3RVER', secret_access_key: 'S3RVER' } });
    const out = await buildOnce(s, 'o', dir);
    expect(out).toMatchObject({ phase: 'PUSH', status: 'PUSH_FAILED' });
    expect(out.error_message).toMatch(/^s3:\/\/nope\/k: /);
  });
});

describe('azure (azurite)', () => {
  it('uploads with metadata and skips unchanged content', async () => {
    const s = store({ azure: { account_url: azUrl, container: 'bundles', path: 'app/bundle.tar.gz', credentials: 'az' } }, {
      az: { type: 'azure_auth', account_name: AZ_ACCOUNT, account_key: AZ_KEY },
    });
    const a = await buildOnce(s, 'o', dir);
    expect(a.error_message).toBe('');
    expect(a.uploaded).toBe(true);
    expect((await buildOnce(s, 'o', dir)).uploaded).toBe(false);
    const blob = new BlobServiceClient(azUrl, new StorageSharedKeyCredential(AZ_ACCOUNT, AZ_KEY)).getContainerClient('bundles').getBlobClient('app/bundle.tar.gz');
    expect((await blob.getProperties()).metadata?.revision).toBe(a.revision);
    expect((await readBack(await blob.downloadToBuffer())).data).toEqual({ cfg: { v: 1 } });
  });
});
