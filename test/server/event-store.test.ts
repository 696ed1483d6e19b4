// The decision-log buffer (server/plugins/event-store.ts): events kept as bytes in
// blocks, each followed by its comma, joined into JSON arrays one block slice at a
// time. Every range of events, across blocks, after drops of the oldest, must join
// to exactly the JSON array of the same strings.
import { describe, expect, it } from 'vitest';
import { EventStore } from '../../server/plugins/event-store.js';

/** Events of varied sizes and characters (multi-byte UTF-8, a few larger than a block). */
function events(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const pad = i % 97 === 0 ? 'é€😀'.repeat(40) : 'x'.repeat((i * 37) % 600);
    out.push(JSON.stringify({ i, pad }));
  }
  out.push(JSON.stringify({ huge: 'y'.repeat(300 * 1024) }));
  out.push(JSON.stringify({ after: '€'.repeat(100 * 1024) }));
  return out;
}

const expected = (list: string[], lo: number, hi: number): string => '[' + list.slice(lo, hi).join(',') + ']';

describe('EventStore', () => {
  it('joins any range of events, within and across blocks, to their JSON array', () => {
    const list = events(3000);
    const store = EventStore.of(list);
    expect(store.length).toBe(list.length);
    expect(store.bytes).toBe(list.reduce((n, e) => n + Buffer.byteLength(e), 0));
    for (const [lo, hi] of [
      [0, list.length],
      [0, 1],
      [5, 6],
      [10, 900],
      [899, 2500],
      [2990, list.length],
      [list.length - 1, list.length],
      [7, 7],
    ] as const) {
      const joined = store.join(lo, hi);
      expect(joined.toString('utf8')).toBe(hi > lo ? expected(list, lo, hi) : '[]');
      if (hi > lo) expect((JSON.parse(joined.toString('utf8')) as unknown[]).length).toBe(hi - lo);
    }
    for (let i = 0; i < list.length; i++) expect(store.sizeOf(i)).toBe(Buffer.byteLength(list[i]!));
  });

  it('joins into a scratch buffer large enough, as a view of it, and allocates when it is too small', () => {
    const list = events(400);
    const store = EventStore.of(list);
    const scratch = Buffer.alloc(64 * 1024, 0x7a);
    const small = store.join(0, 20, scratch);
    expect(small.buffer).toBe(scratch.buffer);
    expect(small.toString('utf8')).toBe(expected(list, 0, 20));
    // Written again for the next range: a shorter result after a longer one leaves no stale bytes in the view.
    const longer = store.join(20, 60, scratch);
    expect(longer.toString('utf8')).toBe(expected(list, 20, 60));
    expect(store.join(1, 3, scratch).toString('utf8')).toBe(expected(list, 1, 3));
    const all = store.join(0, list.length, scratch);
    expect(all.buffer).not.toBe(scratch.buffer);
    expect(all.toString('utf8')).toBe(expected(list, 0, list.length));
  });

  it('drops the oldest events and still joins and lists the rest', () => {
    const list = events(6000);
    const store = EventStore.of(list);
    let dropped = 0;
    for (; dropped < 4500; dropped++) store.shift();
    const rest = list.slice(dropped);
    expect(store.length).toBe(rest.length);
    expect(store.join(0, store.length).toString('utf8')).toBe(expected(rest, 0, rest.length));
    expect(store.strings(3, 40)).toEqual(rest.slice(3, 40));
    store.push('{"new":true}');
    expect(store.join(store.length - 2, store.length).toString('utf8')).toBe(expected([...rest, '{"new":true}'], rest.length - 1, rest.length + 1));
  });

  it('reuses the blocks of a released store without mixing their events', () => {
    const first = EventStore.of(events(2000));
    const second = EventStore.of(['{"kept":1}']);
    first.release();
    expect(first.length).toBe(0);
    expect(first.bytes).toBe(0);
    expect(first.join(0, 0).toString('utf8')).toBe('[]');
    // New stores take the released blocks: their bytes overwrite the old events.
    const list = events(1500);
    const third = EventStore.of(list);
    expect(third.join(0, third.length).toString('utf8')).toBe(expected(list, 0, list.length));
    expect(second.join(0, 1).toString('utf8')).toBe('[{"kept":1}]');
    // A released store can be used again from empty.
    first.push('{"again":true}');
    expect(first.strings()).toEqual(['{"again":true}']);
  });

  it('keeps about as many pooled blocks as the last released store held, and trims when idle', () => {
    // About 40 blocks of 256 KB: events of ~10 KB.
    const big = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i, pad: 'z'.repeat(10_000) }));
    const a = EventStore.of(big);
    a.release();
    const held = EventStore.pooledBlocks();
    expect(held).toBeGreaterThanOrEqual(30);
    // The next store of the same size allocates nothing new: it empties the pool.
    const b = EventStore.of(big);
    expect(EventStore.pooledBlocks()).toBeLessThan(held);
    b.release();
    expect(EventStore.pooledBlocks()).toBe(held);
    // An idle interval releases an empty store: the pool shrinks to its minimum (16).
    new EventStore().release();
    expect(EventStore.pooledBlocks()).toBe(16);
  });
});
