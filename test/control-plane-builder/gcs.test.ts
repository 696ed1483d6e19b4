// Object storage on Google Cloud Storage: the real @google-cloud/storage client
// against the fake JSON API of gcs-server.ts (no GCS emulator is installable
// here). STORAGE_EMULATOR_HOST points the client at it; with a custom endpoint
// the client sends no credentials (it never fetches tokens or asks the metadata
// server), which the fake checks. Like S3 and Azure: upload with `sha256` and
// `revision` metadata, skip unchanged content, report errors with the gs:// URL.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Storage } from '@google-cloud/storage';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { controlPlaneBuildCommand } from '../../cli/control-plane-build.js';
import { PushError } from '../../server/control-plane/builder/errors.js';
import type { SecretValue } from '../../server/control-plane/contract.js';
import { createObjectStore, GcsStore } from '../../server/control-plane/storage-objects/index.js';
import { FakeStore } from './fake-store.js';
import { startFakeGcs, type FakeGcs } from './gcs-server.js';
import { buildOnce, readBack, tempDir, writeFiles } from './helpers.js';

const PROJECT = 'regent-test';
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('base64');
// A service account key as the `credentials` secret carries it; never used for
// signing, because the client does not authenticate against a custom endpoint.
const SERVICE_ACCOUNT = JSON.stringify({
  type: 'service_account', project_id: PROJECT, client_email: 'regent@regent-test.iam.gserviceaccount.com',
  private_key: '-----BEGIN PRIVATE KEY-----\nnot-a-key\n-----END PRIVATE KEY-----\n',
});

let dir: string;
let cleanup: () => Promise<void>;
let gcs: FakeGcs;
const savedEnv: Record<string, string | undefined> = {};

function setEnv(name: string, value: string): void {
  if (!(name in savedEnv)) savedEnv[name] = process.env[name];
  process.env[name] = value;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('regent-gcs-'));
  gcs = await startFakeGcs(['bundles']);
  setEnv('STORAGE_EMULATOR_HOST', gcs.url);
  // Belt and braces: should the client ever look for Application Default
  // Credentials, it must not probe the GCE metadata server.
  setEnv('METADATA_SERVER_DETECTION', 'none');
});

afterAll(async () => {
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await gcs?.close();
  await cleanup();
});

afterEach(() => {
  delete gcs.fail.read;
  delete gcs.fail.upload;
});

function store(objectStorage: object, secrets: Record<string, object>) {
  const s = new FakeStore({ sources: [{ name: 'pushed' }], bundles: [{ name: 'o', requirements: [{ source: 'pushed' }], object_storage: objectStorage as never, revision: 'input.bundle.hash' }], secrets: secrets as never });
  s.putData('pushed', 'cfg', { v: 1 });
  return s;
}

const uploads = () => gcs.requests.filter((r) => r.method === 'POST').length;

describe('gcs (fake JSON API)', () => {
  it('uploads the exact bytes with sha256/revision metadata, skips unchanged content, uploads a change', async () => {
    const s = store({ gcp: { project: PROJECT, bucket: 'bundles', object: 'app/bundle.tar.gz', credentials: 'gcs' } }, {
      gcs: { type: 'gcp_auth', api_key: 'test-api-key' },
    });
    const a = await buildOnce(s, 'o', dir);
    expect(a).toMatchObject({ status: 'SUCCESS', phase: 'PUSH', uploaded: true, error_message: '' });
    const obj = gcs.objects.get('bundles/app/bundle.tar.gz')!;
    expect(obj.bytes.equals(a.bytes!)).toBe(true);
    expect(obj.metadata).toEqual({ sha256: sha256(a.bytes!), revision: a.revision });
    expect(obj).toMatchObject({ contentType: 'application/gzip', md5Hash: md5(a.bytes!) });
    expect((await readBack(obj.bytes)).data).toEqual({ cfg: { v: 1 } });
    // objects.get (404) then one multipart objects.insert, the object name URL-encoded.
    expect(gcs.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'GET /b/bundles/o/app%2Fbundle.tar.gz',
      'POST /upload/storage/v1/b/bundles/o',
    ]);
    expect(new URL(gcs.requests[1]!.url, gcs.url).searchParams.get('uploadType')).toBe('multipart');
    expect(new URL(gcs.requests[1]!.url, gcs.url).searchParams.get('name')).toBe('app/bundle.tar.gz');

    const generation = obj.generation;
    const b = await buildOnce(s, 'o', dir);
    expect(b).toMatchObject({ status: 'SUCCESS', phase: 'PUSH', uploaded: false, revision: a.revision });
    expect(uploads()).toBe(1);
    expect(gcs.objects.get('bundles/app/bundle.tar.gz')!.generation).toBe(generation);

    s.putData('pushed', 'cfg', { v: 2 });
    const c = await buildOnce(s, 'o', dir);
    expect(c).toMatchObject({ status: 'SUCCESS', uploaded: true });
    expect(uploads()).toBe(2);
    const changed = gcs.objects.get('bundles/app/bundle.tar.gz')!;
    expect(BigInt(changed.generation)).toBeGreaterThan(BigInt(generation));
    expect(changed.metadata).toEqual({ sha256: sha256(c.bytes!), revision: c.revision });

    // Read back through the real client: metadata and media download (`alt=media`, hash-checked).
    const file = new Storage({ projectId: PROJECT }).bucket('bundles').file('app/bundle.tar.gz');
    const [md] = await file.getMetadata();
    expect(md.metadata).toEqual({ sha256: sha256(c.bytes!), revision: c.revision });
    const [downloaded] = await file.download();
    expect(downloaded.equals(c.bytes!)).toBe(true);
    expect((await readBack(downloaded)).data).toEqual({ cfg: { v: 2 } });

    // The client never authenticated against the custom endpoint.
    expect(gcs.requests.some((r) => r.auth)).toBe(false);
  });

  it('service-account credentials are accepted; a stale sha256 is overwritten', async () => {
    const loc = { project: PROJECT, bucket: 'bundles', object: 'sa/bundle.tar.gz' };
    const st = new GcsStore(loc, { type: 'gcp_auth', credentials: SERVICE_ACCOUNT });
    expect(st.location).toBe('gs://bundles/sa/bundle.tar.gz');
    const one = Buffer.from('first bundle');
    expect(await st.upload(one, { revision: 'r1', sha256: sha256(one) })).toEqual({ uploaded: true });
    expect(await st.upload(one, { revision: 'r1', sha256: sha256(one) })).toEqual({ uploaded: false });
    const two = Buffer.from('second bundle');
    expect(await st.upload(two, { revision: '', sha256: sha256(two) })).toEqual({ uploaded: true });
    const obj = gcs.objects.get('bundles/sa/bundle.tar.gz')!;
    expect(obj.bytes.equals(two)).toBe(true);
    // An empty revision is not written.
    expect(obj.metadata).toEqual({ sha256: sha256(two) });
  });

  it('a server error becomes a PushError naming the gs:// location (PUSH_FAILED)', async () => {
    gcs.fail.read = 403;
    const s = store({ gcp: { project: PROJECT, bucket: 'bundles', object: 'denied/bundle.tar.gz' } }, {});
    const out = await buildOnce(s, 'o', dir);
    expect(out).toMatchObject({ phase: 'PUSH', status: 'PUSH_FAILED', uploaded: false });
    expect(out.error_message).toMatch(/^gs:\/\/bundles\/denied\/bundle\.tar\.gz: .*storage\.objects\.get access/);

    // Readable but not writable: the upload's 403 is reported the same way.
    delete gcs.fail.read;
    gcs.fail.upload = 403;
    const st = new GcsStore({ project: PROJECT, bucket: 'bundles', object: 'denied/bundle.tar.gz' }, undefined);
    const bytes = Buffer.from('x');
    const err = await st.upload(bytes, { revision: 'r', sha256: sha256(bytes) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PushError);
    expect((err as Error).message).toMatch(/^gs:\/\/bundles\/denied\/bundle\.tar\.gz: .*storage\.objects\.create access/);
    expect(gcs.objects.has('bundles/denied/bundle.tar.gz')).toBe(false);
  });

  it('a missing bucket is PUSH_FAILED', async () => {
    const s = store({ gcp: { project: PROJECT, bucket: 'nope', object: 'k' } }, {});
    const out = await buildOnce(s, 'o', dir);
    expect(out).toMatchObject({ phase: 'PUSH', status: 'PUSH_FAILED' });
    expect(out.error_message).toMatch(/^gs:\/\/nope\/k: .*bucket does not exist/);
  });

  it('rejects bad secrets and incomplete locations', async () => {
    const gcp = { project: PROJECT, bucket: 'bundles', object: 'k', credentials: 'sec' };
    const open = (v: SecretValue | undefined) => createObjectStore({ gcp }, async () => v);
    await expect(open({ type: 'aws_auth', access_key_id: 'a', secret_access_key: 'b' })).rejects.toThrow(new PushError('object storage: unsupported secret type "aws_auth" for gcp'));
    await expect(open({ type: 'gcp_auth', credentials: '{not json' })).rejects.toThrow(/^object storage: gcp credentials: /);
    await expect(open(undefined)).rejects.toThrow(new PushError('object storage: secret "sec" is not configured'));
    await expect(open({} as SecretValue)).rejects.toBeInstanceOf(PushError);
    expect(() => new GcsStore({ project: PROJECT, bucket: '', object: 'k' }, undefined)).toThrow(PushError);

    // Through the worker the same error is a PUSH_FAILED status, and nothing is sent.
    const before = gcs.requests.length;
    const out = await buildOnce(store({ gcp }, { sec: { type: 'azure_auth', account_name: 'a', account_key: 'k' } }), 'o', dir);
    expect(out).toMatchObject({ phase: 'PUSH', status: 'PUSH_FAILED', error_message: 'object storage: unsupported secret type "azure_auth" for gcp' });
    expect(gcs.requests.length).toBe(before);
  });

  it('end to end: `regent control-plane build` pushes a bundle configured with object_storage.gcp', async () => {
    await writeFiles(dir, {
      'cli/rules/rules.rego': 'package rules\nimport rego.v1\nallow if input.ok\n',
      'cli/gcs.yaml': [
        'secrets:',
        '  gcs: {type: gcp_auth, api_key: test-api-key}',
        'sources:',
        `  rules: {directory: ${join(dir, 'cli/rules')}, paths: ["**/*.rego"]}`,
        'bundles:',
        `  app: {revision: input.bundle.hash, requirements: [{source: rules}], object_storage: {gcp: {project: ${PROJECT}, bucket: bundles, object: cli/app.tar.gz, credentials: gcs}}}`,
      ].join('\n'),
    });
    const run = async () => {
      const err: string[] = [];
      const code = await controlPlaneBuildCommand(['-c', join(dir, 'cli/gcs.yaml'), '--data-dir', join(dir, 'cli/data'), '--non-interactive', '--log-level', 'debug'], { out: () => {}, err: (s) => void err.push(s) });
      return { code, text: err.join('') };
    };
    const first = await run();
    expect(first.code).toBe(0);
    expect(JSON.parse(first.text)).toMatchObject({ level: 'DEBUG', msg: 'bundle built' });
    const obj = gcs.objects.get('bundles/cli/app.tar.gz')!;
    expect(obj.metadata?.sha256).toBe(sha256(obj.bytes));
    expect(obj.metadata?.revision).toMatch(/^[0-9a-f]{64}$/);
    expect((await readBack(obj.bytes)).modules).toEqual({ '/rules/rules.rego': 'package rules\n\nimport rego.v1\n\nallow if input.ok\n' });

    const second = await run();
    expect(second.code).toBe(0);
    expect(JSON.parse(second.text)).toMatchObject({ level: 'DEBUG', msg: 'bundle built' });
    expect(gcs.objects.get('bundles/cli/app.tar.gz')!.generation).toBe(obj.generation);
  });
});
