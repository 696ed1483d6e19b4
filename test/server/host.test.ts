// EngineHost.mayDefine: the decision-log plugin skips building the mask/drop input
// and evaluating when no rule and no base data can define the policy document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, putPolicy, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('EngineHost.mayDefine', () => {
  it('is false when nothing can define the path', () => {
    expect(server.app.regent.host.mayDefine('/system/log/mask')).toBe(false);
  });

  it('is true for a rule at, above or below the path', async () => {
    await putPolicy(server, 'mask.rego', 'package system.log\nmask contains "/input/password"\n');
    expect(server.app.regent.host.mayDefine('/system/log/mask')).toBe(true);
    expect(server.app.regent.host.mayDefine('/system/log/drop')).toBe(false);
    await putPolicy(server, 'deep.rego', 'package system.log.drop.parts\nx := true\n');
    expect(server.app.regent.host.mayDefine('/system/log/drop')).toBe(true);
    await putPolicy(server, 'top.rego', 'package other\nsystem_wide := true\n');
    expect(server.app.regent.host.mayDefine('/other/system_wide/x')).toBe(true);
  });

  it('is true for base data at or below the path', async () => {
    expect(server.app.regent.host.mayDefine('/audit/drop')).toBe(false);
    expect((await call(server, 'PUT', '/v1/data/audit/drop', true)).status).toBe(204);
    expect(server.app.regent.host.mayDefine('/audit/drop')).toBe(true);
    expect((await call(server, 'PUT', '/v1/data/audit2/drop/x', 1)).status).toBe(204);
    expect(server.app.regent.host.mayDefine('/audit2/drop')).toBe(true);
  });
});
