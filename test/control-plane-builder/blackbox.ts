// Black-box helpers: run `node bin/regent.js …` as a child process in a work
// directory (the way the reference's e2e txtar scripts run `opactl`), write the
// files of a case, make a local git repository, list and extract a bundle with
// the system `tar`, and start `regent control-plane run` on a free port.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REGENT = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/regent.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `regent <args>` in `cwd`; resolves when it exits. */
export function regent(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [REGENT, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', rej);
    child.on('close', (code) => res({ code: code ?? -1, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

export async function workDir(prefix = 'regent-bb-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function writeAll(root: string, files: Record<string, string>): Promise<void> {
  for (const [p, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true });
    await writeFile(join(root, p), text);
  }
}

/** `git init`, branch main, commit everything (as the txtar scripts do, with HOME=.). */
export function gitInit(dir: string): void {
  const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
  const git = (...a: string[]) => {
    const r = spawnSync('git', ['-c', 'user.name=botbotbot', '-c', 'user.email=bot@bot.bot', '-c', 'init.defaultBranch=main', ...a], { cwd: dir, env });
    if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q', '.');
  git('branch', '-m', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'initial-commit');
}

/** `tar tf` of a bundle: one entry per line, as the reference's goldens list them. */
export function tarList(file: string): string {
  const r = spawnSync('tar', ['tf', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** Extract a bundle into `into` and read the named files back. */
export async function tarRead(file: string, into: string, names: string[]): Promise<Record<string, string>> {
  await mkdir(into, { recursive: true });
  const r = spawnSync('tar', ['xf', file, '-C', into], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const out: Record<string, string> = {};
  for (const n of names) out[n] = await readFile(join(into, n), 'utf8');
  return out;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

export interface Running {
  url: string;
  stderr: () => string;
  stop: () => Promise<number>;
}

/** Start `regent <args>` (a server) and wait until `healthPath` answers 200. */
export async function startServer(args: string[], cwd: string, url: string, healthPath = '/health', env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const child = spawn(process.execPath, [REGENT, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const err: Buffer[] = [];
  child.stderr.on('data', (c: Buffer) => err.push(c));
  child.stdout.resume();
  const exited = new Promise<number>((res) => child.on('close', (code) => res(code ?? -1)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await fetch(url + healthPath).then((r) => r.ok, () => false);
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`server did not start: ${Buffer.concat(err).toString()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stderr: () => Buffer.concat(err).toString(),
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
