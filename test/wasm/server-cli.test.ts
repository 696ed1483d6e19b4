// The command line of the Wasm server: `regent run --server --backend wasm` (and the
// config key `regent.backend`), and a bundle built by `regent build -t wasm` served by
// `regent run --server -b bundle.tar.gz`, whose /policy.wasm answers its manifest
// entrypoints while the other rules run on the JS back end. Real processes, real HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCommand } from '../../cli/build.js';
import { parseArgs } from '../../cli/args.js';
import { RUN_FLAGS, runOptions } from '../../cli/run.js';
import { ConfigError, loadConfig } from '../../server/config/config.js';
import { repoRoot } from '../shared-dir.js';
import { capture } from '../unit/cli/helpers.js';
import { RBAC_DIR, decide, policyDir, type TempDir } from './server-cases.js';
import { ensureRuntime } from './sdk-host.js';

const BIN = join(repoRoot, 'bin/regent');

interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Start `regent run --server --addr 127.0.0.1:0 …args`; resolves with its URL once it listens. */
function runServer(args: string[]): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'run', '--server', '--addr', '127.0.0.1:0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const stop = async (): Promise<void> => {
      child.kill('SIGTERM');
      await exited;
    };
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve({ url: m[1]!, child, stop });
    });
    child.once('exit', (code) => reject(new Error(`regent run exited with ${code}: ${err}`)));
  });
}

/** Ask until the answer comes from the module (the engine's module is built after start). */
async function untilWasm(url: string, path: string, input: unknown, timeoutMs = 150_000): Promise<Awaited<ReturnType<typeof decide>>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const a = await decide(url, path, input);
    if (a.via === 'wasm' || Date.now() > end) return a;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('--backend and regent.backend', () => {
  it('the flag takes js or wasm; anything else is a usage error', () => {
    expect(runOptions(parseArgs(['--server', '--backend', 'wasm'], RUN_FLAGS)).backend).toBe('wasm');
    expect(runOptions(parseArgs(['--server'], RUN_FLAGS)).backend).toBeUndefined();
    expect(() => parseArgs(['--server', '--backend', 'llvm'], RUN_FLAGS)).toThrow(/llvm/);
  });

  it('the config key regent.backend (also through --set)', () => {
    expect(loadConfig({ text: 'regent:\n  backend: wasm\n', version: 't' }).backend).toBe('wasm');
    expect(loadConfig({ sets: ['regent.backend=wasm'], version: 't' }).backend).toBe('wasm');
    expect(loadConfig({ version: 't' }).backend).toBeUndefined();
    expect(() => loadConfig({ text: 'regent:\n  backend: java\n', version: 't' })).toThrow(ConfigError);
  });
});

describe('regent run --server (processes)', () => {
  let dir: TempDir;
  let bundle: string;
  beforeAll(async () => {
    ensureRuntime();
    dir = policyDir({});
    bundle = join(dir.dir, 'rbac.tar.gz');
    const c = capture();
    expect(await buildCommand(['-t', 'wasm', '-e', 'rbac/allow', '-o', bundle, RBAC_DIR], c.io), c.err).toBe(0);
  }, 120_000);
  afterAll(() => dir?.cleanup());

  it('--backend wasm serves decisions from the module, as the JS back end answers', async () => {
    const s = await runServer(['--backend', 'wasm', '--workers', '1', RBAC_DIR]);
    try {
      const bob = { user: 'bob', action: 'update', type: 'finance' };
      expect(await untilWasm(s.url, 'rbac/allow', bob)).toEqual({ status: 200, body: { result: true }, via: 'wasm' });
      expect(await decide(s.url, 'rbac', { user: 'alice' })).toEqual({ status: 200, body: { result: { allow: true, user_is_admin: true, user_is_granted: [] } }, via: 'wasm' });
    } finally {
      await s.stop();
    }
  }, 180_000);

  it('-b bundle.tar.gz built with -t wasm: its entrypoint runs in /policy.wasm, other rules on JS', async () => {
    const s = await runServer(['--workers', '1', '-b', bundle]);
    try {
      const bob = { user: 'bob', action: 'update', type: 'finance' };
      // the bundle's module comes with the policy: no build to wait for
      expect(await decide(s.url, 'rbac/allow', bob)).toEqual({ status: 200, body: { result: true }, via: 'wasm' });
      expect(await decide(s.url, 'rbac/allow', { user: 'eve', action: 'update', type: 'finance' })).toEqual({ status: 200, body: { result: false }, via: 'wasm' });
      expect(await decide(s.url, 'rbac/user_is_admin', { user: 'alice' })).toEqual({ status: 200, body: { result: true }, via: 'js' });
      expect(await decide(s.url, 'rbac', { user: 'alice' })).toEqual({ status: 200, body: { result: { allow: true, user_is_admin: true, user_is_granted: [] } }, via: 'js' });
    } finally {
      await s.stop();
    }
  }, 180_000);
});
