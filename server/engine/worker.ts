// Evaluation worker thread (see pool.ts), a piscina thread whose one task is
// `serve` (pool-threads.ts): it starts the replica and answers batches on the
// task's port until the port closes. Holds a replica of the engine state: asks
// for a snapshot when it starts serving, then applies broadcast updates in generation order and
// acknowledges each. Batches of tasks arrive on the serve task's port and are
// answered there, in order; tasks wait until the replica has reached the generation
// they name. Large documents are built from shared bytes in slices when the engine
// prepares them (so tasks keep being answered meanwhile) and put in place by the
// write that names them. Before each task of a batch the worker notes on the shared
// watchdog board when it started (pool.ts). A candidate module set is compiled on
// request ('compile', policy-compile.ts) before the write that installs it, in
// steps with a turn of the event loop between them, so batches (on the current
// policy) and updates are served while it compiles; the update itself only swaps
// the prepared policy in.
import { BroadcastChannel, threadId, workerData, type MessagePort } from 'node:worker_threads';
import { RObject, applyWrite, buildDocument, buildDocumentSync, parseJSON, setEvalLimits, setRuntimeInfo, type Value } from '../../runtime/index.js';
import type { CompiledPolicy } from '../../compiler/index.js';
import { EvalCore, compileModules } from './evaluate.js';
import { compileCandidateYielding } from './policy-compile.js';
import { documentBytes, documentError, patchMember } from './shared-docs.js';
import type { ServeStarted, ServeTask } from './pool-threads.js';
import { batchLength, batchSlot, batchTask, encodeOutcomes, newestGeneration, type WireBatch, type WireOutcomes } from './wire-batch.js';
import type { CompilePolicy, CompileReport, DownMessage, EvalOutcome, SharedDocument, StateUpdate, UpMessage, WorkerConfig, WireWriteOp } from './protocol.js';

const config = workerData as WorkerConfig;
setEvalLimits({ maxCollectionSize: config.maxCollectionSize, heapLimitMb: config.heapMb });
setRuntimeInfo(parseJSON(config.runtimeText));
const core = new EvalCore(config.v0Compatible);
const down = new BroadcastChannel(config.downChannel);
const up = new BroadcastChannel(config.upChannel);
const board = new Int32Array(config.board);
let generation = -1;
const waiting = new Set<() => void>();
/** Documents built ahead of the write that names them. */
const prepared = new Map<number, Value>();
/** Ids a write or a discard has consumed: a build finishing later is dropped. */
const consumed = new Set<number>();
/** Candidate policies compiled ahead of the update that names them (at most one). */
const compiledAhead = new Map<number, CompiledPolicy>();
/** Keys listed in 'prepared' replies (few: the engine uses them to avoid loading a placeholder). */
const MAX_REPORTED_KEYS = 10_000;

function send(msg: UpMessage): void {
  up.postMessage(msg);
}

/** The value of a shared document: prepared, or built now (a worker that started after the prepare). */
function takeDocument(doc: SharedDocument): Value {
  consumed.add(doc.id);
  const ready = prepared.get(doc.id);
  prepared.delete(doc.id);
  return ready ?? buildDocumentSync(documentBytes(doc), { maxDepth: Infinity }) ?? null;
}

function opValue(op: WireWriteOp, docs: Map<number, Value>): Value | undefined {
  if (op.doc) {
    let doc = docs.get(op.doc.id);
    if (doc === undefined) docs.set(op.doc.id, (doc = takeDocument(op.doc)));
    return op.member === undefined ? doc : patchMember(doc, op.member);
  }
  return op.valueText === undefined ? undefined : parseJSON(op.valueText);
}

function applyUpdate(update: StateUpdate): void {
  if (update.modules) {
    compilingId = undefined;
    const ahead = update.policyId === undefined ? undefined : compiledAhead.get(update.policyId);
    compiledAhead.clear();
    core.setPolicy(ahead ?? compileModules(update.modules, config.v0Compatible));
  }
  if (update.modules || update.wasm) core.setWasmModules(update.wasm ?? []);
  const docs = new Map<number, Value>(); // several operations of one patch name the same document
  for (const op of update.ops ?? []) {
    const value = opValue(op, docs);
    core.applyWrite({ op: op.op, path: op.path, ...(value === undefined ? {} : { value }) });
  }
}

async function prepare(doc: SharedDocument, maxDepth: number): Promise<void> {
  const bytes = documentBytes(doc);
  let value: Value | undefined;
  try {
    value = await buildDocument(bytes, { maxDepth });
    if (value === undefined) throw new Error('empty document');
  } catch (e) {
    send({ type: 'prepared', threadId, id: doc.id, error: documentError(e, bytes) });
    return;
  }
  if (consumed.has(doc.id)) return;
  prepared.set(doc.id, value);
  const keys = value instanceof RObject && value.size <= MAX_REPORTED_KEYS ? (value.keys() as string[]) : undefined;
  send({ type: 'prepared', threadId, id: doc.id, ...(keys ? { keys } : {}) });
}

/** The candidate being compiled (its id), if any: a newer compile, a discard or an update abandons it. */
let compilingId: number | undefined;

/** One turn of the event loop (batches and updates are served), then whether `id` is still wanted. */
function turn(id: number): Promise<boolean> {
  return new Promise((resolve) => setImmediate(() => resolve(compilingId === id)));
}

async function compileAhead(msg: CompilePolicy): Promise<void> {
  compiledAhead.clear();
  compilingId = msg.id;
  let report: CompileReport;
  try {
    const out = await compileCandidateYielding(msg.modules, config.v0Compatible, msg.parseFirst, msg.instrument, () => turn(msg.id));
    if (out === undefined) return; // abandoned
    if (out.policy) compiledAhead.set(msg.id, out.policy);
    report = out.report;
  } catch (e) {
    report = { timers: {}, crash: e instanceof Error ? e.message : String(e) };
  } finally {
    if (compilingId === msg.id) compilingId = undefined;
  }
  send({ type: 'compiled', threadId, id: msg.id, report });
}

function onDown(msg: DownMessage): void {
  if (msg.type === 'compile') {
    if (msg.target === threadId) void compileAhead(msg);
    return;
  }
  if (msg.type === 'discardPolicy') {
    if (compilingId === msg.id) compilingId = undefined;
    compiledAhead.delete(msg.id);
    return;
  }
  if (msg.type === 'prepare') {
    void prepare(msg.doc, msg.maxDepth);
    return;
  }
  if (msg.type === 'discard') {
    consumed.add(msg.id);
    prepared.delete(msg.id);
    return;
  }
  if (msg.type === 'snapshot') {
    if (msg.target !== threadId || msg.generation <= generation) return;
    core.setPolicy(compileModules(msg.modules, config.v0Compatible));
    const data = parseJSON(msg.dataText);
    core.data = data instanceof RObject ? data : new RObject();
    for (const { path, doc } of msg.docs ?? []) core.data = applyWrite(core.data, { op: 'replace', path, value: takeDocument(doc) });
    core.setWasmModules(msg.wasm ?? []);
    generation = msg.generation;
  } else {
    if (generation < 0 || msg.generation <= generation) return; // not started yet, or already applied
    if (msg.generation !== generation + 1) {
      generation = -1; // missed an update: start over from a snapshot
      send({ type: 'hello', threadId });
      return;
    }
    applyUpdate(msg);
    generation = msg.generation;
  }
  send({ type: 'ack', threadId, generation });
  for (const w of [...waiting]) w();
}

function reached(target: number): Promise<void> {
  return new Promise((resolve) => {
    const retry = setInterval(() => {
      if (generation < 0) send({ type: 'hello', threadId });
    }, 500);
    const check = (): void => {
      if (generation >= target) {
        waiting.delete(check);
        clearInterval(retry);
        resolve();
      }
    };
    waiting.add(check);
    check();
  });
}

/** A batch of tasks, answered in order; each task's start is noted on the watchdog board. */
function runBatch(batch: WireBatch): WireOutcomes {
  const slot = batchSlot(batch);
  const n = batchLength(batch);
  const out: EvalOutcome[] = new Array(n);
  for (let i = 0; i < n; i++) {
    if (slot >= 0) {
      Atomics.store(board, slot * 2, Date.now() - config.epoch);
      Atomics.store(board, slot * 2 + 1, i + 1);
    }
    try {
      out[i] = core.run(batchTask(batch, i));
    } catch (e) {
      out[i] = { timers: {}, cacheHit: false, error: { kind: 'other', phase: 'eval', message: `evaluation worker failed: ${e instanceof Error ? e.message : String(e)}` } };
    }
  }
  if (slot >= 0) Atomics.store(board, slot * 2 + 1, 0);
  return encodeOutcomes(out);
}

/**
 * The batch waiting for a newer engine state, if any: batches that arrive meanwhile
 * (the pool posts a second one while the first runs) wait behind it, so the answers
 * leave in the order the batches came.
 */
let behind: Promise<void> | undefined;

function onBatch(batch: WireBatch): void {
  const newest = newestGeneration(batch);
  if (behind === undefined && generation >= newest) {
    port.postMessage(runBatch(batch));
    return;
  }
  const after: Promise<void> = (behind ?? Promise.resolve())
    .then(() => reached(newest))
    .then(() => port.postMessage(runBatch(batch)))
    .catch(() => undefined) // the port closed: the pool is gone
    .finally(() => {
      if (behind === after) behind = undefined;
    });
  behind = after;
}

let port: MessagePort;

/**
 * The thread's one piscina task: listen to state broadcasts, ask for a snapshot and
 * answer batches on `task.port` (first telling the pool this thread's id). Pending
 * while the thread serves; resolves when the pool closes the port.
 */
export function serve(task: ServeTask): Promise<void> {
  port = task.port;
  down.onmessage = (ev) => onDown((ev as { data: DownMessage }).data);
  port.on('message', onBatch);
  port.postMessage({ started: threadId } satisfies ServeStarted);
  send({ type: 'hello', threadId });
  return new Promise((resolve) => port.once('close', () => resolve()));
}
