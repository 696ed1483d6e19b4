// The fleet view end to end, on SQLite and on PostgreSQL: a real control plane (real build scheduler)
// builds a bundle from a directory; a small HTTP server hands the built file to
// two real Regent engines (`node bin/regent.js run --server`), which report
// their status to the control plane through `services` + `status: {service}`
// with a bearer credential of role `engine`:
//   - engine A polls the bundle every second (each poll is a status report, as
//     in OPA) and must show up in /v1/fleet with the built revision, then move
//     to the next revision after `POST /v1/bundles/app/rebuild`;
//   - engine B has no bundle and stays fresh only through `heartbeat_seconds`.
// Stopping A must make it stale after `fleet.stale_after` while B stays fresh.
// Timings (build after rebuild, time to first serve) are printed: they are
// noisy on a shared machine.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, startServer as startRegent, workDir, type Running } from '../control-plane-builder/blackbox.js';
import { sharedFixture } from '../control-plane/fixture.js';
import type { Backend, TestServer } from '../control-plane/helpers.js';
import { ENGINE_KEYS, startFleetServer, waitFor } from './helpers.js';

/** Serve `<dir>/<path>` with a content ETag and 304 on If-None-Match, as a bundle server does. */
function fileServer(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body: Buffer;
    try {
      body = readFileSync(join(dir, (req.url ?? '/').split('?')[0]!.replace(/\.\./g, '')));
    } catch {
      res.writeHead(404).end();
      return;
    }
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(200, { etag, 'content-type': 'application/gzip' }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

const policy = (greeting: string): string => `package app\n\ngreeting := "${greeting}"\n`;

function engineSuite(backend: Backend): void {
  describe(`fleet view with real Regent engines (${backend})`, () => {
    let cp: TestServer;
    let dir: string;
    let cleanup: () => Promise<void>;
    let files: { server: Server; url: string };
    const engines: Running[] = [];

    sharedFixture(
      async () => {
        ({ dir, cleanup } = await workDir('regent-fleet-'));
        mkdirSync(join(dir, 'src'));
        mkdirSync(join(dir, 'out'));
        writeFileSync(join(dir, 'src', 'app.rego'), policy('one'));
        files = await fileServer(join(dir, 'out'));
        const config = `
sources:
    policy: {directory: ${join(dir, 'src')}, paths: ["*.rego"]}
bundles:
    app:
      labels: {env: prod}
      revision: '$"r-{substring(input.bundle.hash, 0, 8)}"'
      object_storage: {filesystem: {path: ${join(dir, 'out', 'app.tar.gz')}}}
      requirements: [{source: policy}]
fleet: {stale_after: 3s}
`;
        cp = await startFleetServer(backend, config, { scheduler: undefined, dataDir: join(dir, 'cp-data') });
      },
      async () => {
        await Promise.all(engines.map((e) => e.stop()));
        await cp?.close();
        await new Promise((r) => files?.server.close(r));
        await cleanup?.();
      },
    );

    async function startEngine(name: string, yaml: string): Promise<Running> {
      const port = await freePort();
      writeFileSync(join(dir, `${name}.yaml`), yaml);
      const e = await startRegent(['run', '--server', '--addr', `127.0.0.1:${port}`, '-c', `${name}.yaml`], dir, `http://127.0.0.1:${port}`);
      engines.push(e);
      return e;
    }

    const latestSuccess = async (): Promise<string | undefined> => {
      const r = await cp.req('GET', '/v1/bundles/app/status/latest');
      return r.status === 200 && r.json.result.status === 'SUCCESS' ? (r.json.result.revision as string) : undefined;
    };
    const engine = async (id: string): Promise<any> => {
      const r = await cp.req('GET', `/v1/fleet/${id}`);
      return r.status === 200 ? r.json.result : undefined;
    };

    it('shows each engine with its revision, follows a rebuild, marks a stopped engine stale', async () => {
      const rev1 = await waitFor('the first build', 60_000, latestSuccess);
      expect(rev1).toMatch(/^r-[0-9a-f]{8}$/);

      const a = await startEngine(
        'engine-a',
        `
labels: {id: regent-a-${backend}, team: payments}
services:
    cp: {url: ${cp.url}, credentials: {bearer: {token: ${ENGINE_KEYS.engine}}}}
    files: {url: ${files.url}}
bundles:
    app: {service: files, resource: app.tar.gz, polling: {min_delay_seconds: 1, max_delay_seconds: 1}}
status: {service: cp}
`,
      );
      await startEngine(
        'engine-b',
        `
labels: {id: regent-b-${backend}}
services:
    cp: {url: ${cp.url}/v1, credentials: {bearer: {token: ${ENGINE_KEYS.engine2}}}}
status: {service: cp, partition_name: edge, heartbeat_seconds: 1}
`,
      );

      const seen = await waitFor('engine A serving the first revision', 30_000, async () => {
        const e = await engine(`regent-a-${backend}`);
        return e?.bundles.app?.active_revision === rev1 ? e : undefined;
      });
      expect(seen.labels).toMatchObject({ id: `regent-a-${backend}`, team: 'payments' });
      expect(seen.stale).toBe(false);
      expect(seen.plugins.bundle.state).toBe('OK');
      expect(seen.errors).toEqual([]);
      expect(seen.report.labels.version).toBeTruthy();
      const served = await fetch(`${a.url}/v1/data/app/greeting`).then((r) => r.json());
      expect(served).toEqual({ result: 'one' });

      // Change the policy and ask for a build now: the engine must move to the new revision.
      writeFileSync(join(dir, 'src', 'app.rego'), policy('two'));
      const t0 = Date.now();
      const rebuild = await cp.req('POST', '/v1/bundles/app/rebuild');
      expect(rebuild.status).toBe(202);
      const rev2 = await waitFor('the rebuild', 30_000, async () => {
        const r = await latestSuccess();
        return r !== undefined && r !== rev1 ? r : undefined;
      });
      const buildMs = Date.now() - t0;
      const rollout = await waitFor('engine A serving the rebuilt revision', 30_000, async () => {
        const r = (await cp.req('GET', '/v1/fleet/bundles')).json.result.find((b: any) => b.bundle === 'app');
        return r?.latest_revision === rev2 && r.serving_latest === 1 ? r : undefined;
      });
      const serveMs = Date.now() - t0;
      expect(rollout).toMatchObject({ engines: 1, behind: [] });
      expect(rollout.seconds_to_first_serve).toBeGreaterThanOrEqual(0);
      expect(rollout.seconds_to_first_serve).toBeLessThan(30);
      expect(Date.parse(rollout.first_served_at)).toBeGreaterThanOrEqual(Date.parse(rollout.built_at) - 1000);
      expect(await fetch(`${a.url}/v1/data/app/greeting`).then((r) => r.json())).toEqual({ result: 'two' });
      console.log(
        `fleet timings (${backend}; shared machine, noisy): rebuild request → new SUCCESS record ${buildMs} ms; ` +
          `→ engine reported serving it ${serveMs} ms; seconds_to_first_serve ${rollout.seconds_to_first_serve}`,
      );

      // Engine B has no bundle: only its heartbeat (reported to /v1/status/edge) moves last_seen.
      const b1 = await waitFor('engine B', 15_000, () => engine(`regent-b-${backend}`));
      const b2 = await waitFor('a heartbeat from engine B', 15_000, async () => {
        const e = await engine(`regent-b-${backend}`);
        return e && e.last_seen !== b1.last_seen ? e : undefined;
      });
      expect(b2.first_seen).toBe(b1.first_seen);
      expect(Object.keys(b2.bundles)).toEqual([]);

      // Stop A: after stale_after (3s) it is stale, while B's heartbeat keeps it fresh.
      await a.stop();
      engines.splice(engines.indexOf(a), 1);
      await waitFor('engine A going stale', 15_000, async () => ((await engine(`regent-a-${backend}`))?.stale ? true : undefined));
      expect((await engine(`regent-b-${backend}`)).stale).toBe(false);
      const fleet = (await cp.req('GET', '/v1/fleet', { key: 'key-viewer-4567' })).json.result as { id: string; stale: boolean }[];
      expect(fleet.map((e) => [e.id, e.stale])).toEqual([[`regent-a-${backend}`, true], [`regent-b-${backend}`, false]]);
      const after = (await cp.req('GET', '/v1/fleet/bundles')).json.result.find((x: any) => x.bundle === 'app');
      expect(after).toMatchObject({ latest_revision: rev2, engines: 0, serving_latest: 0, behind: [] });
    }, 180_000);
  });
}

engineSuite('sqlite');
engineSuite('postgres');
