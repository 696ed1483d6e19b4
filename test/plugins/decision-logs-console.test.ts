// `decision_logs.console=true` (and `status.console`) print to the console as OPA
// does: a real `regent run --server` process, a decision through the REST API, and
// the logrus JSON line on stderr (keys sorted, level/msg/time/type added).
import { describe, expect, it } from 'vitest';
import { logrusLine, rfc3339Seconds, sortedJSON } from '../../server/plugins/console-logger.js';
import { parseJSON } from '../../runtime/index.js';
import { withServer } from '../reliability/helpers.js';

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('console logger (logrus JSON)', () => {
  it('sorts keys at every depth, keeps exact numbers, escapes HTML', () => {
    const v = parseJSON('{"b":{"z":1,"a":12345678901234567890},"a":"<x>"}');
    expect(sortedJSON(v)).toBe('{"a":"\\u003cx\\u003e","b":{"a":12345678901234567890,"z":1}}');
  });
  it('adds level, msg and time and renames clashing fields', () => {
    const line = logrusLine('info', { path: 'x', msg: 'mine' }, 'Decision Log', new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
    const o = JSON.parse(line);
    expect(Object.keys(o)).toEqual(['fields.msg', 'level', 'msg', 'path', 'time']);
    expect(o.level).toBe('info');
    expect(o.msg).toBe('Decision Log');
    expect(line.endsWith('}\n')).toBe(true);
  });
  it('formats time as RFC 3339 seconds', () => {
    expect(rfc3339Seconds(new Date())).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
  });
});

describe('regent run with decision_logs.console=true', () => {
  it('prints one Decision Log line per decision on stderr', async () => {
    await withServer({ args: ['--set', 'decision_logs.console=true'], files: { 'x.rego': 'package x\n\nallow if input.n > 1\n' } }, async (srv) => {
      const res = await fetch(`${srv.url}/v1/data/x/allow`, { method: 'POST', body: '{"input":{"n":12345678901234567890}}' });
      expect(await res.json()).toEqual({ result: true, decision_id: expect.any(String) });
      await waitFor(() => srv.output().includes('"msg":"Decision Log"'));
      const line = srv.output().split('\n').find((l) => l.includes('"msg":"Decision Log"'))!;
      const o = JSON.parse(line);
      expect(Object.keys(o)).toEqual([...Object.keys(o)].sort());
      expect(o).toMatchObject({ level: 'info', msg: 'Decision Log', path: 'x/allow', result: true, type: 'openpolicyagent.org/decision_logs' });
      expect(line).toContain('"input":{"n":12345678901234567890}');
      expect(o.decision_id).toBe(JSON.parse(JSON.stringify(o)).decision_id);
      expect(o.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
      expect(typeof o.timestamp).toBe('string');
      expect(o.labels).toMatchObject({ id: expect.any(String), version: expect.any(String) });
    });
  }, 60_000);
  it('prints Status Log lines with status.console=true', async () => {
    await withServer({ args: ['--set', 'status.console=true'] }, async (srv) => {
      await waitFor(() => srv.output().includes('"msg":"Status Log"'));
      const o = JSON.parse(srv.output().split('\n').find((l) => l.includes('"msg":"Status Log"'))!);
      expect(o).toMatchObject({ level: 'info', type: 'openpolicyagent.org/status' });
      expect(o.labels).toBeDefined();
    });
  }, 60_000);
});
