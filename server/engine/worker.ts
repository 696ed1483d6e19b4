// Evaluation worker thread (run by piscina, see pool.ts). Holds a replica of the
// engine state: asks for a snapshot on start, then applies broadcast updates in
// generation order and acknowledges each. Tasks wait until the replica has reached
// the generation they name.
import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import { RObject, applyWrite, parseJSON } from '../../runtime/index.js';
import { EvalCore, compileModules } from './evaluate.js';
import type { DownMessage, EvalBatch, EvalOutcome, EvalTask, StateUpdate, UpMessage, WorkerConfig } from './protocol.js';

const config = workerData as WorkerConfig;
const core = new EvalCore(config.v0Compatible);
const down = new BroadcastChannel(config.downChannel);
const up = new BroadcastChannel(config.upChannel);
let generation = -1;
const waiting = new Set<() => void>();

function send(msg: UpMessage): void {
  up.postMessage(msg);
}

function applyUpdate(update: StateUpdate): void {
  if (update.modules) core.setPolicy(compileModules(update.modules, config.v0Compatible));
  for (const op of update.ops ?? []) {
    const value = op.valueText === undefined ? undefined : parseJSON(op.valueText);
    core.data = applyWrite(core.data, { op: op.op, path: op.path, ...(value === undefined ? {} : { value }) });
  }
}

function onDown(msg: DownMessage): void {
  if (msg.type === 'snapshot') {
    if (msg.target !== threadId || msg.generation <= generation) return;
    core.setPolicy(compileModules(msg.modules, config.v0Compatible));
    const data = parseJSON(msg.dataText);
    core.data = data instanceof RObject ? data : new RObject();
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

down.onmessage = (ev) => onDown((ev as { data: DownMessage }).data);
send({ type: 'hello', threadId });

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

async function evaluateOne(task: EvalTask): Promise<EvalOutcome> {
  if (generation < task.generation) await reached(task.generation);
  if (task.taskId !== undefined && task.timeoutMs !== undefined) send({ type: 'started', taskId: task.taskId });
  return core.run(task);
}

/** One task, or a batch of tasks without time limits (answered in order). */
export default async function evaluate(message: EvalTask | EvalBatch): Promise<EvalOutcome | EvalOutcome[]> {
  if (!('batch' in message)) return evaluateOne(message);
  const newest = message.batch.reduce((g, t) => Math.max(g, t.generation), -1);
  if (generation < newest) await reached(newest);
  return message.batch.map((task) => core.run(task));
}
