// The cheap decision-log path: events whose input and result are kept as the
// parsed request and the result text (event-json.ts RENDERED, sortedJSONText) must
// give the same JSON as events built from Rego values, become values for masking
// (withValues), and chunking must keep every event, in order, under the limit.
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fromJS, parseJSON, toJSONText } from '../../runtime/index.js';
import type { DecisionEvent } from '../../server/plugins/contract.js';
import { encodeChunks } from '../../server/plugins/decision-logs.js';
import { buildServer } from '../../server/index.js';
import { loadConfig } from '../../server/config/config.js';
import { startPlugins } from '../../server/plugins/index.js';
import { startServer } from './helpers.js';
import { RENDERED, applyMask, eventJSON, eventValue, sortedJSONText, withValues, type RenderedEvent } from '../../server/plugins/event-json.js';

const samples: unknown[] = [
  { user: 'bob', action: 'update', type: 'finance' },
  { b: [1, 2.5, -0, 1e21, 1e-7, 123456789012], a: { z: null, y: true, x: 'é<&>"\n' }, '': [] },
  [{ B: 1, a: 2, _: 3 }, 'x', false, {}],
  'plain',
  0,
  null,
];

function plainEvent(input: unknown, resultText: string): DecisionEvent {
  return { labels: { id: 'i', version: 'v' }, decision_id: 'd1', path: 'rbac/allow', input: fromJS(input), result: parseJSON(resultText), timestamp: 't' };
}

function lazyEvent(input: unknown, resultText: string): RenderedEvent {
  return { labels: { id: 'i', version: 'v' }, decision_id: 'd1', path: 'rbac/allow', timestamp: 't', [RENDERED]: { input, resultText } };
}

describe('sortedJSONText', () => {
  it('writes parsed JSON as toJSONText writes its Rego value', () => {
    for (const s of samples) expect(sortedJSONText(JSON.parse(JSON.stringify(s)))).toBe(toJSONText(fromJS(JSON.parse(JSON.stringify(s)))));
  });
});

describe('rendered event fields', () => {
  it('give the same event JSON as values, without building them', () => {
    for (const s of samples) {
      const result = toJSONText(fromJS({ allow: s }));
      const e = lazyEvent(s, result);
      // Byte for byte, except that the value path keeps integers beyond 2^53 exact
      // (1e21 is written 1000000000000000000000) where the text keeps the double's
      // spelling (1e+21): the same number either way.
      expect(JSON.parse(eventJSON(e))).toEqual(JSON.parse(eventJSON(plainEvent(s, result))));
      if (!JSON.stringify(s).includes('e+')) expect(eventJSON(e)).toBe(eventJSON(plainEvent(s, result)));
      expect(e.input).toBeUndefined();
      expect(e.result).toBeUndefined();
    }
  });

  it('become values with withValues, and the event own values win', () => {
    const e = lazyEvent({ user: 'bob' }, '{"allow":true}');
    e.result = fromJS({ allow: false });
    expect(JSON.parse(eventJSON(e))).toMatchObject({ input: { user: 'bob' }, result: { allow: false } });
    withValues(e);
    expect(toJSONText(e.input!)).toBe('{"user":"bob"}');
    expect(toJSONText(e.result!)).toBe('{"allow":false}');
    expect(e[RENDERED]).toBeUndefined();
    expect(eventJSON(e)).toBe(eventJSON({ ...plainEvent({ user: 'bob' }, '{"allow":false}') }));
  });

  it('are masked and fed to policies as values', () => {
    const e = lazyEvent({ user: 'bob', password: 'x' }, 'true');
    const masked = applyMask(e, fromJS(['/input/password']));
    expect(JSON.parse(eventJSON(masked))).toMatchObject({ input: { user: 'bob' }, result: true, erased: ['/input/password'] });
    expect(toJSONText(eventValue(e))).toContain('"password":"x"');
  });
});

describe('encodeChunks', () => {
  it('keeps every event in order, each chunk under the limit, compressing most bytes once', async () => {
    const events = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ decision_id: `id-${i}`, input: { user: `u${i % 97}`, n: i * 7919 }, result: i % 3 === 0 }));
    const limit = 4096;
    const { chunks, dropped } = await encodeChunks(events, limit);
    expect(dropped).toBe(0);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.body.length).toBeLessThanOrEqual(limit);
    const back = chunks.flatMap((c) => JSON.parse(gunzipSync(c.body).toString()) as { decision_id: string }[]);
    expect(back.map((e) => e.decision_id)).toEqual(events.map((_, i) => `id-${i}`));
    // Most chunks are filled well (the estimate aims at 90% of the limit).
    const full = chunks.slice(0, -1).filter((c) => c.body.length > limit / 2).length;
    expect(full).toBeGreaterThanOrEqual(chunks.length - 2);
  });

  it('compresses a large buffer about once: the first chunk is sized from an assumed ratio, not from the whole buffer', async () => {
    const events = Array.from({ length: 20000 }, (_, i) => JSON.stringify({ decision_id: `id-${i}`, input: { user: `u${i % 97}`, n: i * 7919 }, result: i % 3 === 0 }));
    const raw = events.reduce((n, e) => n + e.length + 1, 1);
    let compressed = 0;
    const memory = new Set<ArrayBufferLike>();
    const counting = (bytes: Buffer): Promise<Buffer> => {
      compressed += bytes.length;
      memory.add(bytes.buffer);
      return Promise.resolve(gzipSync(bytes, { level: 1 }));
    };
    const { chunks, dropped } = await encodeChunks(events, 32768, counting);
    expect(dropped).toBe(0);
    expect(chunks.reduce((n, c) => n + c.count, 0)).toBe(events.length);
    // Sizing the first chunk for the whole buffer compressed it all once for nothing (2×).
    expect(compressed / raw).toBeLessThan(1.1);
    // The chunks are joined into one scratch buffer (grown once after the first chunk), not a fresh buffer each.
    expect(chunks.length).toBeGreaterThan(5);
    expect(memory.size).toBeLessThanOrEqual(2);
  });
});

describe('decision logs through the engine server', () => {
  it('uploads rendered input and result as values would be written, and masks them by policy', async () => {
    const uploads: unknown[] = [];
    const collector = await startServer((_req, body, res) => {
      uploads.push(...(JSON.parse(gunzipSync(body).toString('utf8')) as unknown[]));
      res.statusCode = 204;
      res.end();
    });
    const config = loadConfig({ text: JSON.stringify({ services: { c: { url: collector.url } }, decision_logs: { service: 'c', reporting: { min_delay_seconds: 3600, max_delay_seconds: 7200 } } }), version: 'test' });
    const app = await buildServer({ config });
    const plugins = await startPlugins(config.document, app.regent.host);
    app.regent.attachPlugins(plugins);
    try {
      const put = (id: string, text: string) => app.inject({ method: 'PUT', url: `/v1/policies/${id}`, payload: text, headers: { 'content-type': 'text/plain' } });
      expect((await put('p', 'package app\n\nresult := {"z": input.n, "a": [input.user, 1.5]}\n')).statusCode).toBe(200);
      const input = { user: 'bob', n: 12345678901234, password: 'pw', b: { y: 1, x: '<&>' } };
      const r1 = await app.inject({ method: 'POST', url: '/v1/data/app/result', payload: { input } });
      expect(JSON.parse(r1.body)).toMatchObject({ result: { z: 12345678901234, a: ['bob', 1.5] } });
      // A mask policy: the event's input becomes a value and loses the password.
      expect((await put('mask', 'package system.log\n\nmask contains "/input/password"\n')).statusCode).toBe(200);
      await app.inject({ method: 'POST', url: '/v1/data/app/result', payload: { input } });
      await plugins.flushDecisionLogs();
      expect(uploads).toHaveLength(2);
      const [plain, masked] = uploads as Record<string, unknown>[];
      expect(plain).toMatchObject({ path: 'app/result', input, result: { z: 12345678901234, a: ['bob', 1.5] } });
      // Keys sorted, as OPA writes the event.
      expect(Object.keys(plain!.input as object)).toEqual(['b', 'n', 'password', 'user']);
      expect(masked).toMatchObject({ input: { user: 'bob', n: 12345678901234, b: { x: '<&>', y: 1 } }, result: { z: 12345678901234 }, erased: ['/input/password'] });
      expect(masked!.input).not.toHaveProperty('password');
    } finally {
      await app.close();
      await collector.close();
    }
  });
});
