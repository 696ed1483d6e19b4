// The in-memory, transactional, copy-on-write document store (OPA's `inmem`).
//
// The whole base document is one immutable-by-convention tree of Values. A write
// transaction copies only the containers on the paths it touches (a node it has
// already copied is mutated in place), and commit swaps the root pointer. Readers
// take the root once and never see a half-applied transaction: no torn reads.
// Each commit bumps `generation` and tells the triggers which primitive operations
// were applied, so replicas (worker threads) can replay them in order.
import { RObject, type Value } from '../value/index.js';
import { StorageError, invalidPatch, notFound, writeConflict } from './errors.js';
import { checkPathScope } from './ownership.js';
import { cloneLazy, isLazyObject } from './lazy-object.js';

export type StorePath = readonly string[];

/** One primitive write, as applied by a transaction and replayed by replicas. */
export interface WriteOp {
  op: 'add' | 'replace' | 'remove';
  path: string[];
  value?: Value;
}

export interface CommitEvent {
  generation: number;
  ops: WriteOp[];
}

export type Trigger = (event: CommitEvent) => void;

type Container = RObject | Value[];

function isContainer(v: Value | undefined): v is Container {
  return v instanceof RObject || Array.isArray(v);
}

/** Array index of a path segment: a number, 'append' for `-`, or undefined if not an integer. */
function arrayIndex(seg: string): number | 'append' | undefined {
  if (seg === '-') return 'append';
  return /^(0|[1-9]\d*)$/.test(seg) ? Number(seg) : undefined;
}

function child(node: Value, seg: string): Value | undefined {
  if (node instanceof RObject) return node.getStr(seg);
  if (Array.isArray(node)) {
    const i = arrayIndex(seg);
    return typeof i === 'number' ? node[i] : undefined;
  }
  return undefined;
}

/** Read the value at `path` under `root`; undefined when absent. */
export function readPath(root: Value, path: StorePath): Value | undefined {
  let node: Value | undefined = root;
  for (const seg of path) {
    if (node === undefined) return undefined;
    node = child(node, seg);
  }
  return node;
}

/** A copy of an object for a write (a lazy one's members are not parsed). */
function copyObject(o: RObject): RObject {
  // A placeholder (RObject.lazy) is loaded first: what it loads may be a lazy object.
  if (RObject.isLazy(o)) void o.size;
  return isLazyObject(o) ? cloneLazy(o) : o.clone();
}

/** Apply one primitive write to a tree, copying containers that are not `owned`. */
export function applyWrite(root: RObject, op: WriteOp, owned: Set<object> = new Set()): RObject {
  const { path } = op;
  if (path.length === 0) {
    if (op.op === 'remove') throw invalidPatch('root cannot be removed');
    if (!(op.value instanceof RObject)) throw invalidPatch('root must be object');
    return op.value;
  }
  const own = <T extends Container>(c: T): T => {
    if (owned.has(c)) return c;
    const copy = (Array.isArray(c) ? c.slice() : copyObject(c as RObject)) as T;
    owned.add(copy);
    return copy;
  };
  const newRoot = own(root);
  let node: Container = newRoot;
  for (let i = 0; i < path.length - 1; i++) {
    const next = child(node, path[i]!);
    if (!isContainer(next)) throw notFound(path.slice(0, i + 1));
    const copy = own(next);
    setChild(node, path[i]!, copy);
    node = copy;
  }
  writeLeaf(node, op, path);
  return newRoot;
}

function setChild(node: Container, seg: string, value: Value): void {
  if (node instanceof RObject) node.set(seg, value);
  else node[arrayIndex(seg) as number] = value;
}

function writeLeaf(node: Container, op: WriteOp, path: string[]): void {
  const key = path[path.length - 1]!;
  if (node instanceof RObject) {
    if (op.op !== 'add' && node.getStr(key) === undefined) throw notFound(path);
    if (op.op === 'remove') node.delete(key);
    else node.set(key, op.value!);
    return;
  }
  const idx = arrayIndex(key);
  if (idx === undefined || (idx === 'append' && op.op !== 'add')) {
    throw new StorageError('storage_not_found_error', `/${path.join('/')}: array index must be integer`);
  }
  const at = idx === 'append' ? node.length : idx;
  const limit = op.op === 'add' ? node.length : node.length - 1;
  if (at > limit) throw new StorageError('storage_not_found_error', `/${path.join('/')}: array index out of range`);
  if (op.op === 'add') node.splice(at, 0, op.value!);
  else if (op.op === 'replace') node[at] = op.value!;
  else node.splice(at, 1);
}

export class MemoryStore {
  private rootValue: RObject;
  private gen = 0;
  private readonly triggers = new Set<Trigger>();
  /** Bundle name → roots (undefined roots: the bundle owns everything). */
  private readonly bundleRoots = new Map<string, string[] | undefined>();

  constructor(initial: RObject = new RObject()) {
    this.rootValue = initial;
  }

  /** The committed base document. Callers must not mutate it. */
  get root(): RObject {
    return this.rootValue;
  }

  get generation(): number {
    return this.gen;
  }

  /** The value at `path`, or undefined. */
  read(path: StorePath): Value | undefined {
    return readPath(this.rootValue, path);
  }

  /** The value at `path`; throws storage_not_found_error when absent. */
  readOrThrow(path: StorePath): Value {
    const v = this.read(path);
    if (v === undefined) throw notFound(path);
    return v;
  }

  begin(): Transaction {
    return new Transaction(this, this.rootValue);
  }

  /** Run `fn` in a write transaction; commit if it returns, abort if it throws. */
  transact<T>(fn: (txn: Transaction) => T): T {
    const txn = this.begin();
    const out = fn(txn);
    txn.commit();
    return out;
  }

  onCommit(trigger: Trigger): () => void {
    this.triggers.add(trigger);
    return () => this.triggers.delete(trigger);
  }

  setBundleRoots(name: string, roots: string[] | undefined): void {
    this.bundleRoots.set(name, roots);
  }

  deleteBundleRoots(name: string): void {
    this.bundleRoots.delete(name);
  }

  bundles(): ReadonlyMap<string, string[] | undefined> {
    return this.bundleRoots;
  }

  /** Throw OwnershipError when `path` is (or contains) a path owned by a bundle. */
  checkPathScope(path: StorePath): void {
    checkPathScope(this.bundleRoots, path);
  }

  /** @internal Called by Transaction.commit. */
  commitFrom(txn: Transaction, base: RObject, next: RObject, ops: WriteOp[]): void {
    if (base !== this.rootValue) throw new StorageError('storage_invalid_txn_error', 'stale transaction');
    if (ops.length === 0) return;
    this.rootValue = next;
    this.gen++;
    const event = { generation: this.gen, ops };
    for (const t of this.triggers) t(event);
    void txn;
  }
}

export class Transaction {
  private current: RObject;
  private readonly owned = new Set<object>();
  private readonly ops: WriteOp[] = [];
  private done = false;

  constructor(
    private readonly store: MemoryStore,
    private readonly base: RObject,
  ) {
    this.current = base;
  }

  read(path: StorePath): Value | undefined {
    return readPath(this.current, path);
  }

  write(op: WriteOp['op'], path: StorePath, value?: Value): void {
    if (this.done) throw new StorageError('storage_invalid_txn_error', 'stale transaction');
    const w: WriteOp = { op, path: [...path], ...(op === 'remove' ? {} : { value }) };
    this.current = applyWrite(this.current, w, this.owned);
    this.ops.push(w);
  }

  /**
   * Create the missing parents of `path` as empty objects (like `mkdir -p`). A
   * scalar on the way is a write conflict.
   */
  makeParents(path: StorePath): void {
    for (let i = 0; i < path.length - 1; i++) {
      const prefix = path.slice(0, i + 1);
      const v = this.read(prefix);
      if (v === undefined) {
        const parent = this.read(path.slice(0, i));
        if (!isContainer(parent)) throw writeConflict(path.slice(0, i));
        this.write('add', prefix, new RObject());
      } else if (!isContainer(v)) throw writeConflict(prefix);
    }
  }

  commit(): void {
    if (this.done) return;
    this.done = true;
    this.store.commitFrom(this, this.base, this.current, this.ops);
  }

  abort(): void {
    this.done = true;
  }
}
