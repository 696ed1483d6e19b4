// Unit tests of the copy-on-write store: transactions, errors, triggers, ownership.
import { describe, expect, it } from 'vitest';
import { MemoryStore, OwnershipError, RObject, StorageError, fromJS, toJS } from '../../runtime/index.js';

function store(doc: unknown): MemoryStore {
  return new MemoryStore(fromJS(doc) as RObject);
}

describe('MemoryStore', () => {
  it('commits writes atomically and leaves old roots untouched (no torn reads)', () => {
    const s = store({ a: { b: 1 }, c: [1, 2] });
    const before = s.root;
    s.transact((txn) => {
      txn.write('replace', ['a', 'b'], 2);
      txn.write('add', ['c', '-'], 3);
      expect(toJS(s.read(['a', 'b'])!)).toBe(1); // not visible before commit
    });
    expect(toJS(s.root)).toEqual({ a: { b: 2 }, c: [1, 2, 3] });
    expect(toJS(before)).toEqual({ a: { b: 1 }, c: [1, 2] });
    expect(s.generation).toBe(1);
  });

  it('aborts the whole transaction when one write fails', () => {
    const s = store({ a: 1 });
    expect(() =>
      s.transact((txn) => {
        txn.write('add', ['b'], 2);
        txn.write('replace', ['missing'], 3);
      }),
    ).toThrow(StorageError);
    expect(toJS(s.root)).toEqual({ a: 1 });
    expect(s.generation).toBe(0);
  });

  it('reports OPA storage errors', () => {
    const s = store({ a: 1, arr: [1] });
    const err = (fn: () => void): string => {
      try {
        fn();
      } catch (e) {
        return String(e);
      }
      return 'no error';
    };
    expect(err(() => s.transact((t) => t.write('remove', ['x'])))).toBe('storage_not_found_error: /x: document does not exist');
    expect(err(() => s.transact((t) => t.makeParents(['a', 'b', 'c'])))).toBe('storage_write_conflict_error: /a');
    expect(err(() => s.transact((t) => t.write('add', [], 1)))).toBe('storage_invalid_patch_error: root must be object');
    expect(err(() => s.transact((t) => t.write('remove', [])))).toBe('storage_invalid_patch_error: root cannot be removed');
    expect(err(() => s.transact((t) => t.write('add', ['arr', '5'], 1)))).toBe('storage_not_found_error: /arr/5: array index out of range');
  });

  it('tells triggers which writes were applied', () => {
    const s = store({});
    const seen: string[] = [];
    s.onCommit((e) => seen.push(`${e.generation}:${e.ops.map((o) => `${o.op} /${o.path.join('/')}`).join(',')}`));
    s.transact((t) => {
      t.makeParents(['x', 'y', 'z']);
      t.write('add', ['x', 'y', 'z'], 1);
    });
    expect(seen).toEqual(['1:add /x,add /x/y,add /x/y/z']);
  });

  it('rejects writes under bundle roots, in both directions', () => {
    const s = store({});
    s.setBundleRoots('authz', ['a/b']);
    expect(() => s.checkPathScope(['a', 'b', 'c'])).toThrow(new OwnershipError('path a/b/c is owned by bundle "authz"'));
    expect(() => s.checkPathScope(['a'])).toThrow(new OwnershipError('path a is owned by bundle "authz"'));
    expect(() => s.checkPathScope([])).toThrow("can't write to document root with bundle roots configured");
    expect(() => s.checkPathScope(['x'])).not.toThrow();
    s.setBundleRoots('all', ['']);
    expect(() => s.checkPathScope(['x'])).toThrow('all paths owned by bundle "all"');
  });
});
