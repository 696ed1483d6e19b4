// Git sources through the system `git` binary (child_process with argument
// arrays; user text never reaches a shell). Each repository URL has one bare
// mirror under `<cacheDir>/git/`; a sync fetches heads and tags into it (skipped
// when a pinned commit is already present), resolves `commit` (or a requirement
// pin) or `reference` (`main`, `refs/heads/main`, `refs/tags/v1`), and reads the
// files at that commit with `ls-tree` + `cat-file --batch` — no working tree,
// so concurrent builds of one repository never see each other's checkouts.
// The tree is `path` of the repository, filtered by included/excluded files.
// Credentials: basic_auth / token_auth / oidc_client_credentials become an
// `http.extraHeader` passed through GIT_CONFIG_* environment variables (not
// argv); github_app_auth does the same with basic auth `x-access-token:<token>`
// (installation token, github-app.ts); ssh_key writes a 0600 key file and sets
// GIT_SSH_COMMAND.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { GitOrigin, SourceDef } from '../contract.js';
import { SyncError, messageOf } from '../builder/errors.js';
import { filterTree, subTree, type FileTree } from '../builder/files.js';
import { httpAuth, requireSecret, type SecretLookup } from './credentials.js';
import { GITHUB_APP_GIT_USER, githubAppToken } from './github-app.js';

export interface GitOptions {
  /** Directory holding the bare mirrors (`<cacheDir>/git/<hash>.git`). */
  cacheDir: string;
  /** Base of relative local repository URLs (`./repo/`); default: the process working directory. */
  cwd?: string;
  timeoutMs?: number;
  /** Told about each sync (metrics): failures, and successes that fetched. */
  observer?: GitSyncObserver;
  /** GitHub API base URL for github_app_auth (tests, GitHub Enterprise); see github-app.ts. */
  githubApiUrl?: string;
}

/** Receives git sync outcomes by source name and configured repository URL. */
export interface GitSyncObserver {
  gitSyncSucceeded(source: string, repo: string, seconds: number): void;
  gitSyncFailed(source: string, repo: string): void;
}

export interface GitResult {
  tree: FileTree;
  commit: string;
}

interface GitEnv {
  env: NodeJS.ProcessEnv;
  cleanup: () => Promise<void>;
}

const locks = new Map<string, Promise<unknown>>();

/** Serialize work on one mirror within this process. */
async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(key) ?? Promise.resolve();
  const run = prev.catch(() => undefined).then(fn);
  locks.set(key, run);
  try {
    return await run;
  } finally {
    if (locks.get(key) === run) locks.delete(key);
  }
}

export async function syncGit(def: SourceDef, pin: string | undefined, secrets: SecretLookup, opts: GitOptions): Promise<GitResult> {
  const started = performance.now();
  const state = { fetched: false };
  try {
    const result = await syncGitOnce(def, pin, secrets, opts, state);
    // As in the reference, a sync counts as a success only when it fetched.
    if (state.fetched) opts.observer?.gitSyncSucceeded(def.name, def.git!.repo, (performance.now() - started) / 1000);
    return result;
  } catch (e) {
    opts.observer?.gitSyncFailed(def.name, def.git!.repo);
    throw e;
  }
}

async function syncGitOnce(def: SourceDef, pin: string | undefined, secrets: SecretLookup, opts: GitOptions, state: { fetched: boolean }): Promise<GitResult> {
  const git = def.git!;
  const where = `source "${def.name}": git synchronizer: ${git.repo}`;
  const commitWanted = pin || git.commit;
  if (!git.reference && !commitWanted) throw new SyncError(`${where}: either reference or commit must be set in git configuration`, true);
  const remote = remoteURL(git.repo, opts.cwd);
  const dir = join(opts.cacheDir, 'git', createHash('sha256').update(remote).digest('hex').slice(0, 24) + '.git');
  let genv: GitEnv | undefined;
  try {
    const env = (genv = await gitEnv(git, secrets, opts)).env;
    const run = (args: string[], input?: string): Promise<Buffer> => runGit(['-C', dir, ...args], env, opts.timeoutMs ?? 120_000, input);
    return await withLock(dir, async () => {
      if (!(await stat(join(dir, 'HEAD')).catch(() => undefined))) {
        await mkdir(dir, { recursive: true });
        await run(['init', '--bare', '-q']);
      }
      const has = async (rev: string): Promise<boolean> => run(['cat-file', '-e', `${rev}^{commit}`]).then(() => true, () => false);
      if (!commitWanted || !(await has(commitWanted))) {
        state.fetched = true;
        await run(['fetch', '--force', '--prune', '--no-tags', '-q', '--', remote, '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*']);
        if (commitWanted && !(await has(commitWanted)) && /^[0-9a-f]{40}$/i.test(commitWanted)) {
          await run(['fetch', '-q', '--', remote, commitWanted]).catch(() => undefined);
        }
      }
      const commit = await resolveCommit(run, git, commitWanted);
      let tree = await readCommitTree(run, commit);
      const path = (git.path ?? '').split('/').filter((s) => s !== '' && s !== '.').join('/');
      if (path) {
        tree = subTree(tree, path);
        if (tree.size === 0) throw new SyncError(`source "${def.name}": git path "${git.path}" does not exist`, true);
      }
      return { tree: filterTree(tree, git.included_files, git.excluded_files), commit };
    });
  } catch (e) {
    if (e instanceof SyncError) throw e.message.startsWith('source ') ? e : new SyncError(`${where}: ${e.message}`, e.userError);
    throw new SyncError(`${where}: ${messageOf(e)}`);
  } finally {
    await genv?.cleanup();
  }
}

/**
 * A local repository given as a relative path (`./repo/`, `../x`, `repo`) is
 * resolved from the working directory of the build/run process, as go-git does;
 * git itself would resolve it from the mirror it runs in. URLs (`scheme://`,
 * scp-like `user@host:path`) and absolute paths are passed through.
 */
export function remoteURL(repo: string, cwd = process.cwd()): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(repo) || isAbsolute(repo)) return repo;
  if (/^[^/]+:/.test(repo) && !repo.startsWith('.')) return repo; // scp-like ssh
  return resolve(cwd, repo);
}

async function resolveCommit(run: (a: string[]) => Promise<Buffer>, git: GitOrigin, commit: string | undefined): Promise<string> {
  const candidates: string[] = [];
  if (commit) candidates.push(commit);
  else {
    const ref = git.reference!;
    if (ref.startsWith('refs/heads/')) candidates.push(`refs/remotes/origin/${ref.slice(11)}`);
    else if (ref.startsWith('refs/')) candidates.push(ref);
    else candidates.push(`refs/remotes/origin/${ref}`, `refs/tags/${ref}`);
  }
  for (const c of candidates) {
    const out = await run(['rev-parse', '--verify', '-q', `${c}^{commit}`]).catch(() => undefined);
    if (out) return out.toString('utf8').trim();
  }
  throw new SyncError(commit ? `commit ${commit} not found` : `reference "${git.reference}" not found`, true);
}

/** Every blob of a commit (regular files only; symlinks and submodules are skipped). */
async function readCommitTree(run: (a: string[], input?: string) => Promise<Buffer>, commit: string): Promise<FileTree> {
  const list = (await run(['ls-tree', '-r', '-z', '--full-tree', commit])).toString('utf8').split('\0');
  const entries: { sha: string; path: string }[] = [];
  for (const line of list) {
    const m = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(line);
    if (m && m[2] === 'blob' && m[1] !== '120000') entries.push({ sha: m[3]!, path: m[4]! });
  }
  const tree: FileTree = new Map();
  if (entries.length === 0) return tree;
  const out = await run(['cat-file', '--batch'], entries.map((e) => e.sha).join('\n') + '\n');
  let pos = 0;
  for (const e of entries) {
    const nl = out.indexOf(10, pos);
    const header = out.subarray(pos, nl).toString('utf8').split(' ');
    const size = Number(header[2]);
    if (header[0] !== e.sha || !Number.isFinite(size)) throw new SyncError(`unexpected cat-file output for ${e.path}`);
    tree.set(e.path, out.subarray(nl + 1, nl + 1 + size));
    pos = nl + 1 + size + 1;
  }
  return tree;
}

const USER_ERRORS = /authentication failed|could not read username|repository not found|not found|does not appear to be a git repository|permission denied|returned error: 40[134]|host key verification failed|could not resolve host/i;

function runGit(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, input?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => reject(new SyncError(`git: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(out));
      const text = Buffer.concat(err).toString('utf8').trim().split('\n').filter((l) => l.trim()).slice(-3).join('; ');
      reject(new SyncError(text || `git ${args.find((a) => !a.startsWith('-') && a !== args[1]) ?? ''} failed (${signal ?? code})`, USER_ERRORS.test(text)));
    });
    child.stdin.on('error', () => undefined); // git may exit before reading its input
    child.stdin.end(input ?? '');
  });
}

/** Environment carrying credentials for one git invocation series. */
async function gitEnv(git: GitOrigin, secrets: SecretLookup, opts: GitOptions): Promise<GitEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', LC_ALL: 'C' };
  const config: [string, string][] = [['credential.helper', '']];
  let cleanup = async (): Promise<void> => {};
  const secret = git.credentials ? await requireSecret(secrets, git.credentials) : undefined;
  if (secret?.type === 'ssh_key') {
    const dir = await mkdtemp(join(tmpdir(), 'regent-ssh-'));
    cleanup = () => rm(dir, { recursive: true, force: true });
    const key = join(dir, 'key');
    await writeFile(key, String(secret.key ?? '').replace(/\r\n/g, '\n').replace(/\n?$/, '\n'), { mode: 0o600 });
    const sshArgs = [`ssh -i '${key}' -o IdentitiesOnly=yes -o UserKnownHostsFile='${join(dir, 'known_hosts')}' -o StrictHostKeyChecking=accept-new`];
    if (secret.passphrase) {
      const askpass = join(dir, 'askpass.sh');
      await writeFile(askpass, '#!/bin/sh\nprintf \'%s\\n\' "$REGENT_SSH_PASSPHRASE"\n', { mode: 0o700 });
      Object.assign(env, { SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', REGENT_SSH_PASSPHRASE: String(secret.passphrase), DISPLAY: env.DISPLAY ?? ':0' });
    } else sshArgs.push('-o BatchMode=yes');
    env.GIT_SSH_COMMAND = sshArgs.join(' ');
  } else if (secret?.type === 'github_app_auth') {
    const token = await githubAppToken(secret, { apiUrl: opts.githubApiUrl, timeoutMs: Math.min(opts.timeoutMs ?? 30_000, 30_000) });
    config.push(['http.extraHeader', `authorization: Basic ${Buffer.from(`${GITHUB_APP_GIT_USER}:${token}`).toString('base64')}`]);
  } else if (secret) {
    const auth = await httpAuth(secret);
    for (const [k, v] of Object.entries(auth.headers)) config.push(['http.extraHeader', `${k}: ${v}`]);
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return { env, cleanup };
}

