// regent sign: OPA's cmd/sign_test.go cases — parameter validation messages
// (TestValidateSignParams), the .signatures.json layout (TestWriteTokenToFile: Go's
// MarshalIndent with one space), and a signed directory that verifies as a bundle
// (TestBundleSignVerification), with file names as OPA's loader reports them.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { signCommand, signaturesFileText, validateSignParams } from '../../../cli/sign.js';
import { verifyBundleFile, verifyBundleSignature } from '../../../runtime/bundles/verify.js';
import { capture, tempTree } from './helpers.js';

describe('regent sign', () => {
  it('validates parameters with OPA messages', async () => {
    expect(validateSignParams([], undefined, false)).toBe('specify atleast one path containing policy and/or data files');
    expect(validateSignParams(['foo'], '', true)).toBe('specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)');
    expect(validateSignParams(['foo'], 'foo', false)).toBe('enable bundle mode (ie. --bundle) to sign bundle files or directories');
    expect(validateSignParams(['foo'], 'foo', true)).toBeUndefined();
    const c = capture();
    expect(await signCommand(['--signing-key', 'k', 'foo'], c.io)).toBe(1);
    expect(c.err).toBe('Error: enable bundle mode (ie. --bundle) to sign bundle files or directories\n');
  });

  it('writes .signatures.json as json.MarshalIndent(…, "", " ")', () => {
    expect(signaturesFileText('a.b.c')).toBe('{\n "signatures": [\n  "a.b.c"\n ]\n}');
  });

  it('signs every bundle file except .signatures.json, and the bundle verifies', async () => {
    const t = tempTree({
      '.manifest': '{"revision": "quickbrownfaux"}',
      'a/b/c/data.json': '[1,2,3]',
      'a/b/y/data.yaml': 'foo: 1',
      'example/example.rego': 'package example',
      'policy.wasm': 'modules-compiled-as-wasm-binary',
      'data.json': '{"x": {"y": true}}',
      '.signatures.json': '{"signatures": []}',
    });
    try {
      const c = capture();
      expect(await signCommand(['--bundle', '--signing-key', 'mysecret', '--signing-alg', 'HS256', '-o', t.dir, t.dir], c.io)).toBe(0);
      expect(c.out + c.err).toBe('');
      const written = readFileSync(join(t.dir, '.signatures.json'), 'utf8');
      const token = (JSON.parse(written) as { signatures: string[] }).signatures[0]!;
      expect(written).toBe(signaturesFileText(token));
      const names = (decodeJwt(token) as { files: { name: string; algorithm: string }[] }).files.map((f) => f.name);
      const rel = t.dir.replace(/^\/+/, '');
      expect(names).toEqual(['.manifest', 'a/b/c/data.json', 'a/b/y/data.yaml', 'data.json', 'example/example.rego', 'policy.wasm'].map((n) => `${rel}/${n}`));
      // The token verifies with the HMAC key, and each file's digest matches (OPA's reader with WithBaseDir).
      const files = await verifyBundleSignature({ signatures: [token] }, { keys: { foo: { key: 'mysecret', algorithm: 'HS256' } }, keyid: 'foo' });
      for (const n of ['data.json', 'a/b/y/data.yaml', 'example/example.rego', 'policy.wasm']) {
        expect(() => verifyBundleFile(`${rel}/${n}`, readFileSync(join(t.dir, n)), files)).not.toThrow();
      }
      expect(() => verifyBundleFile(`${rel}/data.json`, Buffer.from('{"x": {"y": false}}'), files)).toThrow();
    } finally {
      t.cleanup();
    }
  });

  it('reports a missing path as error: on stdout, exit 1', async () => {
    const c = capture();
    expect(await signCommand(['--bundle', '--signing-key', 'k', '--signing-alg', 'HS256', '/nonexistent/x'], c.io)).toBe(1);
    expect(c.out).toBe('error: stat /nonexistent/x: no such file or directory\n');
  });
});
