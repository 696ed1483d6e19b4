// Bundle signatures: OPA's `.signatures.json` JWS over the file list — valid
// signatures with RSA, EC and HMAC keys, and every way verification fails.
import { describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, decodeJwt } from 'jose';
import { BundleError, hashBundleFile, readBundle, signBundle, writeBundle, type Bundle, type VerificationConfig } from '../../runtime/bundles/index.js';
import { extractTarGz, tarEntries } from '../../runtime/bundles/index.js';
import { fromJS } from '../../runtime/value/index.js';
import { gzipSync } from 'node:zlib';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPriv = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const rsaPub = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ecPriv = ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string;
const ecPub = ec.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;

const bundle = (): Bundle => ({
  manifest: { revision: 'r1', roots: ['app'] },
  modules: [{ path: '/app/p.rego', text: 'package app\nallow := true\n' }],
  data: fromJS({ app: { users: ['a', 'b'], note: 'line\u2028sep <&>' } }),
});

async function failure(p: Promise<unknown>): Promise<string> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(BundleError);
  return (e as Error).message;
}

/** Rewrite one file inside a tar.gz. */
async function tamper(archive: Buffer, path: string, text: string | undefined, add?: Record<string, string>): Promise<Buffer> {
  const files = await extractTarGz(archive);
  const out = files.filter((f) => f.path !== path || text !== undefined).map((f) => (f.path === path ? { path, bytes: Buffer.from(text!) } : f));
  for (const [p, t] of Object.entries(add ?? {})) out.push({ path: p, bytes: Buffer.from(t) });
  return gzipSync(await tarEntries(out));
}

const rsaCfg: VerificationConfig = { keys: { k1: { key: rsaPub, algorithm: 'RS256' } } };

describe('bundle signatures', () => {
  it('signs in OPA format and verifies (RS256, kid header)', async () => {
    const signed = await signBundle(bundle(), { key: rsaPriv, keyId: 'k1' });
    const token = (signed.signatures as { signatures: string[] }).signatures[0]!;
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: 'k1' });
    const payload = decodeJwt(token) as { files: { name: string; algorithm: string }[]; keyid: string };
    expect(payload.files.map((f) => f.name)).toEqual(['app/p.rego', 'data.json', '.manifest']);
    expect(payload.keyid).toBe('k1');
    const back = await readBundle(await writeBundle(signed), { verification: rsaCfg });
    expect(back.manifest.revision).toBe('r1');
  });

  it('verifies ES256 and HS256 and honours the configured keyid over kid', async () => {
    const es = await signBundle(bundle(), { key: ecPriv, algorithm: 'ES256', keyId: 'whatever' });
    await readBundle(await writeBundle(es), { verification: { keys: { e: { key: ecPub, algorithm: 'ES256' } }, keyid: 'e' } });
    const hs = await signBundle(bundle(), { key: 'sekrit', algorithm: 'HS256', claims: { keyid: 'h', scope: 'write' } });
    await readBundle(await writeBundle(hs), { verification: { keys: { h: { key: 'sekrit', algorithm: 'HS256', scope: 'write' } } } });
  });

  it('hashes structured files over canonical JSON, independent of formatting', async () => {
    const a = hashBundleFile('SHA-256', 'x/data.json', Buffer.from('{"b": 1, "a": [true, null, "s"]}'));
    const b = hashBundleFile('SHA-256', 'x/data.json', Buffer.from('{\n  "a":[true,null,"s"],\n  "b":1\n}'));
    const y = hashBundleFile('SHA-256', 'x/data.yaml', Buffer.from('b: 1\na: [true, null, s]\n'));
    expect(a).toBe(b);
    expect(y).toBe(a);
    expect(hashBundleFile('SHA-256', 'p.rego', Buffer.from('x'))).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  });

  it('fails on a tampered file, an unsigned extra file, or a missing signed file', async () => {
    const archive = await writeBundle(await signBundle(bundle(), { key: rsaPriv, keyId: 'k1' }));
    expect(await failure(readBundle(await tamper(archive, '/app/p.rego', 'package app\nallow := false\n'), { verification: rsaCfg }))).toMatch(/^app\/p.rego: digest mismatch \(want: [0-9a-f]{64}, got: [0-9a-f]{64}\)$/);
    expect(await failure(readBundle(await tamper(archive, '/data.json', '{"app": {}}'), { verification: rsaCfg }))).toMatch(/^data.json: digest mismatch/);
    expect(await failure(readBundle(await tamper(archive, '/x', undefined, { '/extra.rego': 'package app.x\n' }), { verification: rsaCfg }))).toBe('file extra.rego not included in bundle signature');
    expect(await failure(readBundle(await tamper(archive, '/app/p.rego', undefined), { verification: rsaCfg }))).toBe('file(s) [app/p.rego] specified in bundle signatures but not found in the target bundle');
    // An excluded file may be anything.
    await readBundle(await tamper(archive, '/x', undefined, { '/notes/readme.txt': 'hi' }), { verification: { ...rsaCfg, exclude_files: ['notes/*'] } });
  });

  it('fails with the wrong key, unknown key id, scope mismatch, or no key at all', async () => {
    const archive = await writeBundle(await signBundle(bundle(), { key: rsaPriv, keyId: 'k1' }));
    expect(await failure(readBundle(archive, { verification: { keys: { k1: { key: other } } } }))).toMatch(/^failed to verify JWT signature: /);
    expect(await failure(readBundle(archive, { verification: { keys: { k2: { key: rsaPub } } } }))).toBe('verification key corresponding to ID k1 not found');
    expect(await failure(readBundle(archive, { verification: { ...rsaCfg, scope: 'write' } }))).toBe('scope mismatch');
    expect(await failure(readBundle(archive))).toBe('verification key not provided');
    const noKid = await writeBundle(await signBundle(bundle(), { key: rsaPriv }));
    expect(await failure(readBundle(noKid, { verification: rsaCfg }))).toBe('verification key ID is empty');
  });

  it('fails when signing is required but the bundle is unsigned, and on malformed signatures', async () => {
    const plain = await writeBundle(bundle());
    expect(await failure(readBundle(plain, { verification: { ...rsaCfg, keyid: 'k1' } }))).toBe('bundle missing .signatures.json file');
    const two = await tamper(plain, '/x', undefined, { '/.signatures.json': '{"signatures": ["a.b.c", "d.e.f"]}' });
    expect(await failure(readBundle(two, { verification: rsaCfg }))).toBe('.signatures.json: multiple JWTs not supported (expected exactly one)');
    const none = await tamper(plain, '/x', undefined, { '/.signatures.json': '{"signatures": []}' });
    expect(await failure(readBundle(none, { verification: rsaCfg }))).toBe('.signatures.json: missing JWT (expected exactly one)');
    // skipVerify ignores the file entirely.
    await readBundle(two, { skipVerify: true });
  });

  it('refuses unknown signing algorithms', async () => {
    expect(await failure(signBundle(bundle(), { key: rsaPriv, algorithm: 'none' }))).toBe('unknown signature algorithm: none');
  });
});
