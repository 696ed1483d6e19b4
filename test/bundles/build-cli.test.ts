// `regent build`: plain paths and bundle directories into a bundle.tar.gz that
// the reader accepts, compile errors as file:row:col lines, revision and signing.
import { describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../cli/main.js';
import { readBundle } from '../../runtime/bundles/index.js';
import { toJS } from '../../runtime/value/index.js';

function io(): { out: string[]; err: string[]; io: { out(s: string): void; err(s: string): void } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (s) => void out.push(s), err: (s) => void err.push(s) } };
}

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'regent-build-'));
  for (const [p, t] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), t);
  }
  return dir;
}

describe('regent build', () => {
  it('builds a bundle from a bundle directory with -b', async () => {
    const dir = tree({
      'src/.manifest': JSON.stringify({ roots: ['app'], metadata: { owner: 'me' } }),
      'src/app/policy.rego': 'package app\n\nallow if input.user == "admin"\n',
      'src/app/data.json': '{"admins": ["a"]}',
    });
    const out = join(dir, 'out.tar.gz');
    const t = io();
    expect(await main(['build', '-b', join(dir, 'src'), '-o', out, '--revision', 'v7'], t.io)).toBe(0);
    expect(t.err.join('')).toBe('');
    const b = await readBundle(readFileSync(out));
    expect(b.manifest).toEqual({ revision: 'v7', roots: ['app'], rego_version: 1, metadata: { owner: 'me' } });
    expect(b.modules.map((m) => m.path)).toEqual(['/app/policy.rego']);
    expect(toJS(b.data)).toEqual({ app: { admins: ['a'] } });
  });

  it('builds plain paths, merging data at directory paths', async () => {
    const dir = tree({ 'p/x.rego': 'package x\nq := data.p.cfg.v\n', 'p/cfg/settings.json': '{"v": 1}' });
    const out = join(dir, 'b.tar.gz');
    const t = io();
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(await main(['build', 'p', '-o', out], t.io)).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    const b = await readBundle(readFileSync(out));
    expect(b.modules.map((m) => m.path)).toEqual(['/p/x.rego']);
    expect(toJS(b.data)).toEqual({ cfg: { v: 1 } });
    expect(b.manifest).toEqual({ revision: '', roots: [''], rego_version: 1 });
  });

  it('fails with file:row:col errors when a policy does not compile', async () => {
    const dir = tree({ 'bad.rego': 'package bad\n\nallow if {\n  x == 1\n}\n' });
    const out = join(dir, 'never.tar.gz');
    const t = io();
    expect(await main(['build', join(dir, 'bad.rego'), '-o', out], t.io)).toBe(1);
    expect(t.err.join('')).toMatch(new RegExp(`^error: 1 error occurred:\\n${join(dir, 'bad.rego').replace(/[/\\.]/g, '\\$&')}:4:3: rego_unsafe_var_error: var x is unsafe\\n$`));
    expect(existsSync(out)).toBe(false);
  });

  it('signs with --signing-key and --claims-file', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const dir = tree({
      'key.pem': privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      'claims.json': '{"keyid": "mine", "scope": "read"}',
      'b/p.rego': 'package p\nx := 1\n',
    });
    const out = join(dir, 's.tar.gz');
    const t = io();
    expect(await main(['build', '-b', join(dir, 'b'), '-o', out, '--signing-key', join(dir, 'key.pem'), '--signing-alg', 'ES256', '--claims-file', join(dir, 'claims.json')], t.io)).toBe(0);
    const pub = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const b = await readBundle(readFileSync(out), { verification: { keys: { mine: { key: pub, algorithm: 'ES256', scope: 'read' } } } });
    expect(b.modules.length).toBe(1);
    await expect(readBundle(readFileSync(out), { verification: { keys: { mine: { key: pub, algorithm: 'ES256' } } } })).rejects.toThrow('scope mismatch');
  });

  // opa's commands are cobra commands: a bad command line is `Error: …` and exit code 1.
  it('reports usage errors with exit code 1', async () => {
    const t = io();
    expect(await main(['build'], t.io)).toBe(1);
    expect(t.err.join('')).toMatch(/^Error: expected at least one path/);
  });
});
