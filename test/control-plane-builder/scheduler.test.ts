// The BuildScheduler: initial builds on start, debounced rebuilds after
// notifyChanged (coalescing bursts), rebuild_interval ticks, the error
// interval, new and deleted bundles, buildAll, and a clean stop.
import { afterEach, describe, expect, it } from 'vitest';
import { parseDuration, Scheduler } from '../../server/control-plane/scheduler.js';
import type { BuildOutcome } from '../../server/control-plane/worker.js';
import { FakeStore } from './fake-store.js';
import { tempDir } from './helpers.js';

const running: Scheduler[] = [];
const dirs: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  for (const c of dirs.splice(0)) await c();
});

async function setup(store: FakeStore, opts: Partial<ConstructorParameters<typeof Scheduler>[0]> = {}) {
  const { dir, cleanup } = await tempDir();
  dirs.push(cleanup);
  const builds: BuildOutcome[] = [];
  const s = new Scheduler({ store, dataDir: dir, debounceMs: 30, defaultIntervalMs: 60_000, errorIntervalMs: 60_000, onBuild: (o) => builds.push(o), ...opts });
  running.push(s);
  return { s, builds };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(pred: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timeout');
    await wait(5);
  }
}

describe('Scheduler', () => {
  it('parses Go durations', () => {
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('10')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
  });

  it('builds every bundle on start and debounces notifications into one rebuild', async () => {
    const store = new FakeStore({ sources: [{ name: 's' }], bundles: [{ name: 'a', requirements: [{ source: 's' }] }, { name: 'b', requirements: [{ source: 's' }] }] });
    const { s, builds } = await setup(store);
    s.start();
    await until(() => builds.length === 2);
    expect(builds.map((b) => b.bundle_name).sort()).toEqual(['a', 'b']);
    for (let i = 0; i < 5; i++) s.notifyChanged(['a']);
    await until(() => builds.length === 3);
    await wait(100);
    expect(builds.length).toBe(3);
    expect(builds[2]!.bundle_name).toBe('a');
    s.notifyChanged();
    await until(() => builds.length === 5);
  });

  it('picks up new bundles on notification and forgets deleted ones', async () => {
    const store = new FakeStore({ sources: [{ name: 's' }], bundles: [{ name: 'a', requirements: [{ source: 's' }] }] });
    const { s, builds } = await setup(store);
    s.start();
    await until(() => builds.length === 1);
    store.bundles.set('n', { name: 'n', requirements: [{ source: 's' }] });
    store.bundles.delete('a');
    s.notifyChanged(['n']);
    await until(() => builds.some((b) => b.bundle_name === 'n'));
    s.notifyChanged(['a']);
    await wait(100);
    expect(builds.filter((b) => b.bundle_name === 'a').length).toBe(1);
    expect(builds.filter((b) => b.bundle_name === 'n').length).toBe(1);
  });

  it('rebuilds every rebuild_interval, and after the error interval on failure', async () => {
    const store = new FakeStore({
      sources: [{ name: 's' }],
      bundles: [
        { name: 'tick', requirements: [{ source: 's' }], rebuild_interval: '50ms' } as never,
        { name: 'bad', requirements: [{ source: 'missing' }], rebuild_interval: '50ms' } as never,
      ],
    });
    const { s, builds } = await setup(store, { errorIntervalMs: 120 });
    s.start();
    await wait(400);
    await s.stop();
    const ticks = builds.filter((b) => b.bundle_name === 'tick').length;
    const bad = builds.filter((b) => b.bundle_name === 'bad');
    expect(ticks).toBeGreaterThanOrEqual(4);
    expect(bad.length).toBeGreaterThanOrEqual(2);
    expect(bad.length).toBeLessThanOrEqual(4);
    expect(bad[0]).toMatchObject({ status: 'BUILD_FAILED', error_message: 'missing source "missing"' });
    const n = builds.length;
    await wait(150);
    expect(builds.length).toBe(n);
  });

  it('buildAll builds the named bundles once without starting timers', async () => {
    const store = new FakeStore({ sources: [{ name: 's' }], bundles: [{ name: 'a', requirements: [{ source: 's' }] }, { name: 'b' }] });
    const { s } = await setup(store);
    const out = await s.buildAll(['b']);
    expect(out.map((o) => [o.bundle_name, o.status, o.phase])).toEqual([['b', 'SUCCESS', 'BUILD']]);
    expect(store.statuses.length).toBe(1);
  });
});
