// opa.runtime(): the server gives policies OPA's runtime document (runtime/eval/runtime-info.ts):
// the configuration as loaded (no defaults added), every environment variable, the
// version and commit, and whether authorization is on; in-process and in the workers.
// `regent eval` gives the same without a configuration, as `opa eval`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, putPolicy, startTestServer, type TestServer } from './helpers.js';

const POLICY = `package rt
import rego.v1
info := opa.runtime()
`;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runtimeDocument(workers: number): Promise<Record<string, unknown>> {
  process.env.REGENT_RUNTIME_TEST = 'visible';
  server = await startTestServer({ workers, configText: 'labels:\n  region: eu-west\ndecision_logs:\n  console: false\n' });
  expect((await putPolicy(server, 'rt', POLICY)).status).toBe(200);
  const r = await call(server, 'POST', '/v1/data/rt/info', {});
  expect(r.status).toBe(200);
  return (r.json() as { result: Record<string, unknown> }).result;
}

describe('opa.runtime() in the server', () => {
  for (const workers of [0, 1]) {
    it(`has the loaded config, env, version and flags (workers: ${workers})`, async () => {
      const doc = await runtimeDocument(workers);
      expect(Object.keys(doc).sort()).toEqual(['authorization_enabled', 'commit', 'config', 'env', 'skip_known_schema_check', 'version']);
      const config = doc.config as Record<string, any>;
      expect(config.labels.region).toBe('eu-west');
      expect(config.decision_logs).toEqual({ console: false });
      expect(config.default_decision).toBeUndefined(); // defaults are not part of the loaded config
      expect((doc.env as Record<string, string>).REGENT_RUNTIME_TEST).toBe('visible');
      expect(doc.version).toBe('0.1.0-test');
      expect(doc.authorization_enabled).toBe(false);
      expect(doc.skip_known_schema_check).toBe(false);
    });
  }
});

describe('opa.runtime() in regent eval', () => {
  it('has env, version and commit, and no config', () => {
    const bin = join(import.meta.dirname, '..', '..', 'bin', 'regent.js');
    const p = spawnSync(process.execPath, [bin, 'eval', '--format', 'json', 'x := opa.runtime()'], { encoding: 'utf8', env: { ...process.env, REGENT_RUNTIME_TEST: 'from-eval' } });
    expect(p.status, p.stderr).toBe(0);
    const x = JSON.parse(p.stdout).result[0].bindings.x;
    expect(x.env.REGENT_RUNTIME_TEST).toBe('from-eval');
    expect(x.config).toBeUndefined();
    expect(typeof x.version).toBe('string');
    expect(x.authorization_enabled).toBe(false);
  });
});
