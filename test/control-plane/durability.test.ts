// Durability on SQLite: run `regent control-plane run` as a child process, send
// a stream of concurrent writes, kill -9 it mid-stream, restart it on the same
// data directory and check that every write that was answered 200 is there.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KEY = 'durability-admin-key';
const dir = mkdtempSync(join(tmpdir(), 'regent-cp-durable-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Start the CLI from the TypeScript sources; resolves with its URL once /health is 200. */
async function startChild(config: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const entry = pathToFileURL(join(root, 'cli', 'main.ts')).href;
  const code = `import { main } from ${JSON.stringify(entry)}; process.exitCode = await main(process.argv.slice(1));`;
  const args = ['control-plane', 'run', '-c', config, '--addr', '127.0.0.1:0', '--data-dir', dataDir];
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`control plane did not start:\n${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /"url":"(http:\/\/[^"]+)".*"msg":"control plane ready"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`control plane exited with ${code}:\n${stderr}`));
    });
  });
  expect((await fetch(`${url}/health`)).status).toBe(200);
  return { child, url };
}

const exited = (c: ChildProcess): Promise<unknown> =>
  c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r));

const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

describe('SQLite durability', () => {
  it('keeps every acknowledged write across kill -9', async () => {
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `tokens: {admin: {api_key: ${KEY}, scopes: [{role: administrator}]}}\nsources: {dur: {}}\n`);
    const dataDir = join(dir, 'data');
    const { child, url } = await startChild(config, dataDir);

    const acked: { kind: 'data' | 'bundle'; n: number }[] = [];
    let stop = false;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const n = next++;
        const kind = n % 2 ? 'data' : 'bundle';
        const path = kind === 'data' ? `/v1/sources/dur/data/k/${n}` : `/v1/bundles/b${n}`;
        const body = kind === 'data' ? { n, pad: 'x'.repeat(200) } : { labels: { n: String(n) } };
        try {
          const r = await fetch(url + path, { method: 'PUT', headers, body: JSON.stringify(body) });
          if (r.status === 200) acked.push({ kind, n });
          else throw new Error(`unexpected status ${r.status}`);
        } catch (e) {
          if (!stop && child.exitCode === null && child.signalCode === null) throw e;
          return; // the server was killed while this request was in flight
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    while (acked.length < 300) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL'); // mid-stream: workers still have requests in flight
    stop = true;
    await Promise.all(workers);
    await exited(child);
    expect(child.signalCode).toBe('SIGKILL');

    const again = await startChild(config, dataDir);
    const get = async (path: string): Promise<any> => (await fetch(again.url + path, { headers })).json(); // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const w of acked) {
      if (w.kind === 'data') expect(await get(`/v1/sources/dur/data/k/${w.n}`), `data ${w.n}`).toEqual({ result: { n: w.n, pad: 'x'.repeat(200) } });
      else expect((await get(`/v1/bundles/b${w.n}`)).result, `bundle ${w.n}`).toEqual({ name: `b${w.n}`, labels: { n: String(w.n) } });
    }
    expect(acked.length).toBeGreaterThanOrEqual(300);
    again.child.kill('SIGTERM');
    await exited(again.child);
    expect(again.child.exitCode).toBe(0);
  });
});
