// A synchronous bridge for http.send. Builtins run synchronously, so requests are
// performed by one long-lived worker thread (undici) while the calling thread
// blocks in Atomics.wait on a SharedArrayBuffer; the reply is then read from a
// MessagePort with receiveMessageOnPort. Note: a server living on the *same*
// thread as the caller cannot answer while it is blocked.
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { WORKER_SOURCE } from './http-worker.js';
import type { RequestSpec } from './http-request.js';

export interface WireResponse {
  ok: true;
  status: string;
  statusCode: number;
  headers: Record<string, string[]>;
  /** Body bytes, base64. */
  body: string;
}

export interface WireError {
  ok: false;
  error: { timeout: boolean; message: string; op?: string; url?: string; internal?: boolean };
}

export type WireResult = WireResponse | WireError;

interface Bridge {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
  nextId: number;
}

let bridge: Bridge | undefined;

function start(): Bridge {
  if (bridge) return bridge;
  const sab = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const undiciPath = createRequire(import.meta.url).resolve('undici');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { sab, port: port2, undiciPath },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  worker.on('error', () => {
    bridge = undefined;
  });
  worker.on('exit', () => {
    bridge = undefined;
  });
  bridge = { worker, port: port1, flag: new Int32Array(sab), nextId: 1 };
  return bridge;
}

/** Stop the worker (tests, shutdown). */
export async function stopHttpWorker(): Promise<void> {
  const b = bridge;
  bridge = undefined;
  if (b) await b.worker.terminate();
}

/**
 * Perform a request and block until it completes or `waitMs` elapses. Returns
 * the worker's result, or undefined when the wait itself timed out.
 */
export function sendSync(spec: RequestSpec, waitMs: number): WireResult | undefined {
  const b = start();
  // Drop replies to earlier requests that were abandoned.
  while (receiveMessageOnPort(b.port) !== undefined) {
    /* discard */
  }
  const id = b.nextId++ & 0x7fffffff || b.nextId++;
  b.port.postMessage({ id, spec });
  const deadline = Date.now() + waitMs;
  for (;;) {
    const cur = Atomics.load(b.flag, 0);
    if (cur === id) break;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return undefined;
    Atomics.wait(b.flag, 0, cur, remaining);
  }
  for (;;) {
    const msg = receiveMessageOnPort(b.port) as { message: { id: number; result: WireResult } } | undefined;
    if (msg === undefined) return undefined;
    if (msg.message.id === id) return msg.message.result;
  }
}
