// Git sources with a `github_app_auth` secret: a fake GitHub API (node:http) checks
// the App JWT with the public key (jose jwtVerify: RS256, iss = integration id,
// iat in the past, exp within 10 minutes) and the installation id, and issues
// installation tokens; git http-backend accepts only `x-access-token:<issued
// token>` as basic auth. Covers a sync, token reuse across syncs, refresh of a
// token near expiry, and clear user errors (unknown installation, missing key file).
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearGitHubAppTokens } from '../../server/control-plane/sources/github-app.js';
import { FakeStore } from './fake-store.js';
import { initRepo, serveGit, type GitHttpServer } from './git-server.js';
import { buildOnce, readBack, tempDir } from './helpers.js';

const APP_ID = 12345;
const INSTALLATION = 678;
/** An installation whose tokens expire within the refresh margin. */
const SHORT_LIVED = 679;

interface FakeGitHub {
  url: string;
  /** Token requests: installation id from the path, and whether the JWT verified. */
  requests: { installation: string; verified: boolean; accept?: string }[];
  issued: Set<string>;
  close(): Promise<void>;
}

async function fakeGitHub(publicKey: KeyObject): Promise<FakeGitHub> {
  const requests: FakeGitHub['requests'] = [];
  const issued = new Set<string>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const json = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const m = /^\/app\/installations\/([^/]+)\/access_tokens$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) return json(404, { message: 'Not Found' });
      const entry = { installation: m[1], verified: false, accept: req.headers.accept };
      requests.push(entry);
      const auth = req.headers.authorization ?? '';
      try {
        const { payload } = await jwtVerify(auth.replace(/^Bearer /, ''), publicKey, { algorithms: ['RS256'], issuer: String(APP_ID) });
        const now = Date.now() / 1000;
        if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number' || payload.iat > now || payload.exp - payload.iat > 600) throw new Error('bad claims');
        entry.verified = true;
      } catch {
        return json(401, { message: 'A JSON web token could not be decoded' });
      }
      if (m[1] !== String(INSTALLATION) && m[1] !== String(SHORT_LIVED)) return json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
      const token = `ghs_${m[1]}_${issued.size + 1}`;
      issued.add(token);
      const ttl = m[1] === String(SHORT_LIVED) ? 30_000 : 3_600_000;
      json(201, { token, expires_at: new Date(Date.now() + ttl).toISOString().replace(/\.\d+Z$/, 'Z'), permissions: { contents: 'read' } });
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    issued,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let dir: string;
let cleanup: () => Promise<void>;
let keyFile: string;
let github: FakeGitHub;
let git: GitHttpServer;
const savedApiUrl = process.env.REGENT_GITHUB_API_URL;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('regent-ghapp-'));
  // PKCS#1, the format GitHub issues App keys in.
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } });
  keyFile = join(dir, 'app.private-key.pem');
  await writeFile(keyFile, privateKey, { mode: 0o600 });
  await initRepo(join(dir, 'repos', 'policies'), { 'authz/authz.rego': 'package authz\nimport rego.v1\nallow if input.user == "alice"\n' });
  github = await fakeGitHub(publicKey);
  git = await serveGit(join(dir, 'repos'), (h) => {
    const m = /^Basic (.+)$/.exec(h ?? '');
    const [user, token] = m ? Buffer.from(m[1], 'base64').toString('utf8').split(':') : [];
    return user === 'x-access-token' && github.issued.has(token);
  });
  process.env.REGENT_GITHUB_API_URL = github.url;
});
afterAll(async () => {
  if (savedApiUrl === undefined) delete process.env.REGENT_GITHUB_API_URL;
  else process.env.REGENT_GITHUB_API_URL = savedApiUrl;
  await git?.close();
  await github?.close();
  await cleanup();
});
beforeEach(() => {
  clearGitHubAppTokens();
  github.requests.length = 0;
  git.requests.length = 0;
});

function store(secret: Record<string, unknown>) {
  return new FakeStore({
    sources: [{ name: 'repo', git: { repo: `${git.url}/policies`, reference: 'main', credentials: 'gh-app' } }],
    secrets: { 'gh-app': { type: 'github_app_auth', integration_id: APP_ID, installation_id: INSTALLATION, private_key: keyFile, ...secret } },
    bundles: [{ name: 'b', requirements: [{ source: 'repo' }] }],
  });
}

describe('git with github_app_auth', () => {
  it('syncs with the installation token as basic auth, and reuses the token', async () => {
    const s = store({});
    const out = await buildOnce(s, 'b', join(dir, 'work-1'));
    expect(out.error_message).toBe('');
    expect(Object.keys((await readBack(out.bytes!)).modules)).toEqual(['/repo/authz/authz.rego']);
    expect(github.requests).toEqual([{ installation: String(INSTALLATION), verified: true, accept: 'application/vnd.github+json' }]);
    expect(git.requests.length).toBeGreaterThan(0);
    expect(git.requests.every((r) => r.authorized)).toBe(true);

    // A second sync fetches again with the cached token: no new token request.
    const fetchesBefore = git.requests.length;
    const again = await buildOnce(s, 'b', join(dir, 'work-1'));
    expect(again.error_message).toBe('');
    expect(git.requests.length).toBeGreaterThan(fetchesBefore);
    expect(git.requests.every((r) => r.authorized)).toBe(true);
    expect(github.requests).toHaveLength(1);
    expect(github.issued.size).toBeGreaterThanOrEqual(1);
  });

  it('ids given as strings (env-expanded) work; a token near expiry is requested again', async () => {
    const s = store({ integration_id: String(APP_ID), installation_id: String(SHORT_LIVED) });
    expect((await buildOnce(s, 'b', join(dir, 'work-2'))).error_message).toBe('');
    expect((await buildOnce(s, 'b', join(dir, 'work-2'))).error_message).toBe('');
    expect(github.requests.map((r) => r.installation)).toEqual([String(SHORT_LIVED), String(SHORT_LIVED)]);
  });

  it('an unknown installation id is a user error that carries GitHub\'s answer', async () => {
    const out = await buildOnce(store({ installation_id: 999 }), 'b', join(dir, 'work-3'));
    expect(out).toMatchObject({ phase: 'SYNC', status: 'USER_ERROR', revision: '' });
    expect(out.error_message).toBe(
      `source "repo": git synchronizer: ${git.url}/policies: github_app_auth: could not refresh installation id 999's token: ` +
        `received non 2xx response status 404 when fetching ${github.url}/app/installations/999/access_tokens: Not Found`,
    );
    expect(github.requests).toEqual([{ installation: '999', verified: true, accept: 'application/vnd.github+json' }]);
    expect(git.requests).toHaveLength(0);
  });

  it('an unreadable private key file, a non-key file and a bad id are user errors', async () => {
    const missing = await buildOnce(store({ private_key: join(dir, 'nope.pem') }), 'b', join(dir, 'work-4'));
    expect(missing).toMatchObject({ phase: 'SYNC', status: 'USER_ERROR' });
    expect(missing.error_message).toMatch(/: github_app_auth: could not read private key: ENOENT/);

    await writeFile(join(dir, 'junk.pem'), 'not a key\n');
    const junk = await buildOnce(store({ private_key: join(dir, 'junk.pem') }), 'b', join(dir, 'work-4'));
    expect(junk).toMatchObject({ phase: 'SYNC', status: 'USER_ERROR' });
    expect(junk.error_message).toContain(': github_app_auth: could not parse private key');

    const badId = await buildOnce(store({ integration_id: 'app' }), 'b', join(dir, 'work-4'));
    expect(badId).toMatchObject({ phase: 'SYNC', status: 'USER_ERROR' });
    expect(badId.error_message).toBe(`source "repo": git synchronizer: ${git.url}/policies: github_app_auth: integration_id must be a positive integer`);
    expect(github.requests).toHaveLength(0);
  });

  it('a GitHub API that cannot be reached is a sync failure, not a user error', async () => {
    process.env.REGENT_GITHUB_API_URL = 'http://127.0.0.1:1';
    try {
      const out = await buildOnce(store({}), 'b', join(dir, 'work-5'));
      expect(out).toMatchObject({ phase: 'SYNC', status: 'SYNC_FAILED' });
      expect(out.error_message).toContain("github_app_auth: could not refresh installation id 678's token: could not get access_tokens from GitHub API");
    } finally {
      process.env.REGENT_GITHUB_API_URL = github.url;
    }
  });
});
