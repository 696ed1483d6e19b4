// The cheap decision-log event of the Data API (server/api/context.ts logDecision
// with the server's own plugins): the metrics text written without objects
// (RequestMetrics.snapshotText), the shared labels text, and the rendered event's
// writer (event-json.ts) must give exactly the JSON of the same event with Rego
// values and objects (withValues, then the generic writer).
import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { RequestMetrics, logDecision } from '../../server/api/context.js';
import type { DecisionEvent } from '../../server/plugins/contract.js';
import { RENDERED, eventJSON, genericEventJSON, quoteJSON, sortedJSONText, withValues, type RenderedEvent } from '../../server/plugins/event-json.js';
import { fromJS, toJSONText } from '../../runtime/index.js';
import { buildServer } from '../../server/index.js';
import { loadConfig } from '../../server/config/config.js';

const HANDLER = /"timer_server_handler_ns":\d+/;

describe('RequestMetrics.snapshotText', () => {
  const cases: [string, { timers: Record<string, number>; cacheHit: boolean }[]][] = [
    ['one evaluation', [{ timers: { timer_rego_query_eval_ns: 5, timer_rego_input_parse_ns: 7 }, cacheHit: false }]],
    ['a cache hit', [{ timers: { timer_rego_query_eval_ns: 5, timer_rego_query_compile_ns: 9 }, cacheHit: true }]],
    ['no timers', [{ timers: {}, cacheHit: false }]],
    ['two evaluations', [{ timers: { timer_a_ns: 1 }, cacheHit: true }, { timers: { timer_b_ns: 2 }, cacheHit: false }]],
    ['a timer the handler also sets', [{ timers: { timer_server_handler_ns: 3, timer_x_ns: 1 }, cacheHit: false }]],
    ['odd numbers', [{ timers: { timer_z_ns: -0, timer_y_ns: 1.5, timer_w_ns: Number.NaN }, cacheHit: false }]],
  ];
  it.each(cases)('%s: the JSON of snapshot(), keys sorted', (_name, outcomes) => {
    for (let round = 0; round < 3; round++) {
      // Rounds reuse (and, between cases, replace) the cached key order.
      const m = new RequestMetrics();
      for (const o of outcomes) m.addOutcome(o);
      const text = m.snapshotText();
      const object = m.snapshot();
      expect(text.replace(HANDLER, '"timer_server_handler_ns":0')).toBe(JSON.stringify(object).replace(HANDLER, '"timer_server_handler_ns":0'));
      expect(Object.keys(JSON.parse(text) as object)).toEqual(Object.keys(object));
      expect(text).toMatch(HANDLER);
    }
  });
});

describe('rendered decision events', () => {
  const request = { ip: '10.0.0.1', socket: { remotePort: 4242 } } as unknown as FastifyRequest;

  async function capture(records: Parameters<typeof logDecision>[2][]): Promise<RenderedEvent[]> {
    const config = loadConfig({ version: 'test', text: 'labels:\n  app: "a<b>"\n  region: eu\ndecision_logs:\n  console: true\n' });
    const app = await buildServer({ config });
    const events: RenderedEvent[] = [];
    app.regent.attachPlugins({ logDecision: (e: DecisionEvent) => void events.push(e), rendersEvents: true, status: () => ({}), stop: async () => undefined });
    for (const r of records) logDecision(app.regent, request, r);
    await app.close();
    return events;
  }

  it('write the JSON of the same events with values', async () => {
    const metrics = new RequestMetrics();
    metrics.addOutcome({ timers: { timer_rego_query_eval_ns: 12 }, cacheHit: true });
    const events = await capture([
      { decisionId: 'id-1', path: 'rbac/allow', input: { js: { user: 'bob', n: 1.5, list: [3, { z: 1, a: '<&>' }] } }, resultText: '{"a":[1,2],"b":"x"}', resultIsValueText: true, requestMetrics: metrics },
      { decisionId: 'id-2', path: 'p', input: { js: null }, resultText: 'true', resultIsValueText: true },
      { decisionId: 'id-3', path: 'p', error: { code: 'eval_conflict_error', message: 'm' }, requestMetrics: metrics },
      { decisionId: 'id-4', query: 'data.x = 1', resultText: '[\n  1\n]', custom: { type: 't' } },
      { decisionId: 'id-5', path: 'p', input: { js: { big: 1 } }, resultText: '1' },
    ]);
    expect(events).toHaveLength(5);
    for (const e of events) {
      expect(e[RENDERED]).toBeDefined();
      const text = eventJSON(e);
      const generic = genericEventJSON(e);
      const valued = genericEventJSON(withValues({ ...e }));
      expect(text).toBe(generic);
      expect(text).toBe(valued);
      expect(JSON.parse(text)).toMatchObject({ labels: { app: 'a<b>', region: 'eu' }, requested_by: '10.0.0.1:4242' });
    }
    expect(JSON.parse(eventJSON(events[0]!))).toMatchObject({ input: { list: [3, { a: '<&>', z: 1 }] }, result: { a: [1, 2] }, metrics: { counter_server_query_cache_hit: 1, timer_rego_query_eval_ns: 12 } });
    // Events of one server share one frozen labels object.
    expect(events[0]!.labels).toBe(events[1]!.labels);
    expect(Object.isFrozen(events[0]!.labels)).toBe(true);
  });

  it('an event changed after it was made is written by the generic writer', async () => {
    const [e] = await capture([{ decisionId: 'id-1', path: 'p', input: { js: { a: 1 } }, resultText: 'true', resultIsValueText: true }]);
    (e as unknown as Record<string, unknown>).req_id = 7;
    expect(eventJSON(e!)).toContain('"req_id":7');
    expect(eventJSON(e!)).toBe(genericEventJSON(e!));
  });
});

describe('quoteJSON and the input text', () => {
  const strings = ['', 'plain', 'a"b', 'back\\slash', 'tab\there', '\u0000\u001f', 'é€', '😀', '\ud800', 'x\udfff', '\u2028\u2029', '<&>', ' '.repeat(100), 'k'.repeat(70)];
  it('quotes as JSON.stringify does', () => {
    for (const s of strings) expect(quoteJSON(s)).toBe(JSON.stringify(s));
  });
  it('writes inputs as toJSONText writes their Rego values (keys sorted, cached key texts)', () => {
    const inputs: unknown[] = [
      Object.fromEntries(strings.map((s, i) => [s, i % 2 ? s : { [s]: [s, i, -0, 1.5e300] }])),
      { user: 'bob', action: 'update', type: 'finance' },
      { type: 'finance', user: 'bob', action: 'update' },
      [null, true, false, 0, -1, 'a"', { b: 1, a: 2 }],
    ];
    for (let round = 0; round < 2; round++) for (const x of inputs) expect(sortedJSONText(x)).toBe(toJSONText(fromJS(x)));
  });
});
