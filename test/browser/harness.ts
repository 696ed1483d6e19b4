// The browser tests' world: the dashboard bundle (built by
// server/control-plane/ui/build.mjs when missing or stale), a real control plane
// (createControlPlane with SQLite and the default build scheduler) whose
// filesystem bundles a small HTTP bundle server publishes, two real engines
// (`regent run --server` child processes) that pull the bundle and report
// status to the control plane with an `engine`-role key, and Debian's Chromium
// driven by playwright-core with a fresh user-data directory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createControlPlane, type ControlPlane } from '../../server/control-plane/index.js';
import { parseConfig } from '../../server/control-plane/config/load.js';
import { serveBundles, type BundleFileServer } from '../control-plane-builder/bundle-server.js';
import { freePort, REGENT } from '../control-plane-builder/blackbox.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOTS = join(root, 'test/browser/screenshots');
export const CHROMIUM = process.env.REGENT_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const KEYS = { admin: 'dashboard-admin-key', viewer: 'dashboard-viewer-key', owner: 'dashboard-owner-key', engine: 'dashboard-engine-key' };

/** Build the dashboard bundle when it is missing or older than its sources (the script decides). */
export function buildDashboard(): void {
  const r = spawnSync(process.execPath, [join(root, 'server/control-plane/ui/build.mjs')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dashboard build failed: ${r.stderr}`);
}

export interface Engine {
  name: string;
  url: string;
  child: ChildProcess;
  log: () => string;
}

export interface World {
  dir: string;
  cp: ControlPlane;
  cpUrl: string;
  files: BundleFileServer;
  engines: Engine[];
  browser: BrowserContext;
  /** The absolute path the control plane writes bundle `name` to (served by `files`). */
  bundlePath(name: string): string;
  close(): Promise<void>;
}

async function until(what: string, pred: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await pred().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Start `regent run --server` with a config that pulls bundle `app` and reports status to the control plane. */
async function startEngine(dir: string, name: string, cpUrl: string, filesUrl: string): Promise<Engine> {
  const port = await freePort();
  const config = {
    labels: { engine: name },
    services: {
      bundles: { url: filesUrl },
      control_plane: { url: cpUrl, credentials: { bearer: { token: KEYS.engine } } },
    },
    bundles: { app: { service: 'bundles', resource: '/bundles/app.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } },
    status: { service: 'control_plane' },
  };
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, JSON.stringify(config, null, 2));
  const child = spawn(process.execPath, [REGENT, 'run', '--server', '--addr', `127.0.0.1:${port}`, '-c', file, '--log-level', 'error'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  await until(`engine ${name} to answer /health\n${out}`, async () => (await fetch(`${url}/health`)).status < 500, 90_000);
  return { name, url, child, log: () => out };
}

export async function startWorld(): Promise<World> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium package (.ci/run does) or set REGENT_CHROMIUM`);
  buildDashboard();
  const dir = await mkdtemp(join(tmpdir(), 'regent-browser-'));
  await mkdir(join(dir, 'bundles'), { recursive: true });
  await mkdir(join(dir, 'data'), { recursive: true });
  const config = parseConfig({
    tokens: {
      admin: { api_key: KEYS.admin, scopes: [{ role: 'administrator' }] },
      viewer: { api_key: KEYS.viewer, scopes: [{ role: 'viewer' }] },
      owner: { api_key: KEYS.owner, scopes: [{ role: 'owner' }] },
      engines: { api_key: KEYS.engine, scopes: [{ role: 'engine' }] },
    },
    // Engines report about every second (each bundle poll changes their status); one paused for 5 s is stale.
    fleet: { stale_after: '5s' },
  });
  const cp = createControlPlane({ config, dataDir: join(dir, 'data'), port: 0, logLevel: 'silent' });
  const cpUrl = await cp.start();
  const files = await serveBundles(dir);
  const engines: Engine[] = [];
  const userData = join(dir, 'chromium-profile');
  let browser: BrowserContext | undefined;
  const close = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    for (const e of engines) e.child.kill('SIGCONT'), e.child.kill('SIGTERM');
    await Promise.all(engines.map((e) => (e.child.exitCode === null ? new Promise((r) => e.child.once('exit', r)) : undefined)));
    await files.close();
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    engines.push(...(await Promise.all(['engine-a', 'engine-b'].map((n) => startEngine(dir, n, cpUrl, files.url)))));
    browser = await chromium.launchPersistentContext(userData, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 800 },
    });
  } catch (e) {
    await close();
    throw e;
  }
  await mkdir(SCREENSHOTS, { recursive: true });
  return { dir, cp, cpUrl, files, engines, browser, bundlePath: (name) => join(dir, 'bundles', `${name}.tar.gz`), close };
}

/** An API call with a key, as curl would make it. */
export async function call(cpUrl: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json: () => any }> {
  const res = await fetch(cpUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) };
}

/** Open the dashboard in a new tab (its own session storage) and sign in with `key`. */
export async function signIn(world: World, key: string): Promise<Page> {
  const page = await world.browser.newPage();
  await page.goto(`${world.cpUrl}/ui/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('role').waitFor();
  return page;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

export { until };
