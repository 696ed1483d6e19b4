// Git sources from real repositories: file:// and smart HTTP with a bearer token
// (git http-backend behind a CGI wrapper), with git.path, requirement prefix,
// included/excluded files, commit pins, the commit as revision input, and
// authentication failures classified as user errors.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeStore } from './fake-store.js';
import { commitAll, initRepo, serveGit, type GitHttpServer } from './git-server.js';
import { buildOnce, readBack, tempDir, writeFiles } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let repo: string;
let first: string;
let second: string;
let server: GitHttpServer;
const TOKEN = 's3cr3t-token';

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('regent-git-'));
  repo = join(dir, 'repos', 'policies');
  first = await initRepo(repo, {
    'policies/authz/authz.rego': 'package authz\nimport rego.v1\nallow if input.user == "alice"\n',
    'policies/authz/authz_test.rego': 'package authz\nimport rego.v1\ntest_allow if allow with input as {"user": "alice"}\n',
    'policies/users/data.json': '{"alice": {"role": "admin"}}',
    'policies/README.md': '# docs\n',
    'other/ignored.rego': 'package ignored\n',
  });
  await writeFiles(repo, { 'policies/authz/extra.rego': 'package authz\nimport rego.v1\nversion := 2\n' });
  second = commitAll(repo, 'second');
  server = await serveGit(join(dir, 'repos'), TOKEN);
});
afterAll(async () => {
  await server.close();
  await cleanup();
});

function gitSource(url: string, extra: object = {}) {
  return {
    name: 'repo',
    git: { repo: url, reference: 'main', path: 'policies', excluded_files: ['*_test.rego', '*.md'], ...extra },
  };
}

describe('git over file://', () => {
  it('reads git.path at the reference, filtered by globs, mounted with a prefix', async () => {
    const store = new FakeStore({
      sources: [gitSource(`file://${repo}`)],
      bundles: [{ name: 'g', requirements: [{ source: 'repo', prefix: 'team' }], revision: '$"git-{substring(input.sources.repo.git.commit, 0, 7)}"' }],
    });
    const out = await buildOnce(store, 'g', join(dir, 'work'));
    expect(out.error_message).toBe('');
    expect(out.revision).toBe(`git-${second.slice(0, 7)}`);
    const rb = await readBack(out.bytes!);
    expect(Object.keys(rb.modules).sort()).toEqual(['/repo/authz/authz.rego', '/repo/authz/extra.rego']);
    expect(rb.modules['/repo/authz/authz.rego']).toContain('package team.authz');
    expect(rb.data).toEqual({ team: { users: { alice: { role: 'admin' } } } });
    expect(rb.bundle.manifest.roots).toEqual(['team/authz', 'team/users']);
  });

  it('included_files keep only matching files; a requirement pin checks out an older commit', async () => {
    const store = new FakeStore({
      sources: [gitSource(`file://${repo}`, { included_files: ['authz/*.rego'] })],
      bundles: [{ name: 'p', requirements: [{ source: 'repo', git: { commit: first } }], revision: 'input.sources.repo.git.commit' }],
    });
    const out = await buildOnce(store, 'p', join(dir, 'work'));
    expect(out.revision).toBe(first);
    expect(Object.keys((await readBack(out.bytes!)).modules)).toEqual(['/repo/authz/authz.rego']);
  });

  it('a missing git.path or reference is a user error in the SYNC phase', async () => {
    const store = new FakeStore({
      sources: [gitSource(`file://${repo}`, { path: 'nope' }), { name: 'r2', git: { repo: `file://${repo}`, reference: 'no-such-branch' } }],
      bundles: [{ name: 'm', requirements: [{ source: 'repo' }] }, { name: 'n', requirements: [{ source: 'r2' }] }],
    });
    expect(await buildOnce(store, 'm', join(dir, 'work'))).toMatchObject({ phase: 'SYNC', status: 'USER_ERROR', revision: '', error_message: 'source "repo": git path "nope" does not exist' });
    expect((await buildOnce(store, 'n', join(dir, 'work'))).error_message).toBe(`source "r2": git synchronizer: file://${repo}: reference "no-such-branch" not found`);
  });
});

describe('git over HTTP with a token', () => {
  it('clones through git http-backend with the bearer token', async () => {
    const store = new FakeStore({
      sources: [{ ...gitSource(`${server.url}/policies`), git: { ...gitSource('').git, repo: `${server.url}/policies`, credentials: 'gh' } }],
      secrets: { gh: { type: 'token_auth', token: TOKEN } },
      bundles: [{ name: 'h', requirements: [{ source: 'repo' }] }],
    });
    const out = await buildOnce(store, 'h', join(dir, 'work-http'));
    expect(out.error_message).toBe('');
    expect(Object.keys((await readBack(out.bytes!)).modules).sort()).toEqual(['/repo/authz/authz.rego', '/repo/authz/extra.rego']);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.authorized)).toBe(true);
  });

  it('a wrong token fails the sync as a user error', async () => {
    const store = new FakeStore({
      sources: [{ name: 'repo', git: { repo: `${server.url}/policies`, reference: 'main', credentials: 'gh' } }],
      secrets: { gh: { type: 'token_auth', token: 'wrong' } },
      bundles: [{ name: 'h', requirements: [{ source: 'repo' }] }],
    });
    const out = await buildOnce(store, 'h', join(dir, 'work-http2'));
    expect(out).toMatchObject({ phase: 'SYNC', status: 'USER_ERROR' });
    expect(out.error_message).toContain(`source "repo": git synchronizer: ${server.url}/policies:`);
    expect(out.error_message).not.toContain('wrong');
  });

  it('an unconfigured credentials secret is a user error', async () => {
    const store = new FakeStore({
      sources: [{ name: 'repo', git: { repo: `${server.url}/policies`, reference: 'main', credentials: 'missing' } }],
      bundles: [{ name: 'h', requirements: [{ source: 'repo' }] }],
    });
    expect((await buildOnce(store, 'h', join(dir, 'work-http3'))).error_message).toBe(`source "repo": git synchronizer: ${server.url}/policies: secret "missing" is not configured`);
  });
});
