// The main thread's side of the Wasm compile thread (wasm-compile-worker.ts): started
// on the first build, one build in flight at a time; a newer request supersedes an
// older one still waiting (its promise resolves with `superseded`). The thread is
// unref'd, so it never keeps the process alive.
import { Worker } from 'node:worker_threads';
import type { SourceFile } from '../../compiler/index.js';
import type { WasmCompileReply, WasmCompileRequest } from './wasm-compile-worker.js';
import type { WasmBuildReport } from './wasm-modules.js';

function workerFile(): URL {
  const compiled = import.meta.url.endsWith('.js');
  return new URL(compiled ? './wasm-compile-worker.js' : './wasm-compile-boot.mjs', import.meta.url);
}

type Outcome = WasmBuildReport | { superseded: true };

export class WasmCompiler {
  private worker: Worker | undefined;
  private nextId = 0;
  private running: { id: number; resolve(o: Outcome): void } | undefined;
  private waiting: { req: WasmCompileRequest; resolve(o: Outcome): void } | undefined;

  /** Compile `modules` and their Wasm module (every rule and package path but `taken`). */
  build(modules: SourceFile[], v0Compatible: boolean, taken: string[][]): Promise<Outcome> {
    return new Promise((resolve) => {
      const req: WasmCompileRequest = { id: ++this.nextId, modules, v0Compatible, taken };
      this.waiting?.resolve({ superseded: true });
      this.waiting = { req, resolve };
      this.pump();
    });
  }

  private start(): Worker {
    const w = new Worker(workerFile());
    w.unref();
    w.on('message', (reply: WasmCompileReply) => {
      const r = this.running;
      if (r?.id !== reply.id) return;
      this.running = undefined;
      r.resolve(reply.report);
      this.pump();
    });
    w.on('error', (e: unknown) => this.failed(e instanceof Error ? e : new Error(String(e))));
    w.on('exit', () => this.failed(new Error('the wasm compile thread exited')));
    return w;
  }

  private failed(e: Error): void {
    this.worker = undefined;
    const r = this.running;
    this.running = undefined;
    r?.resolve({ specs: [], refused: [], error: e.message });
    this.pump();
  }

  private pump(): void {
    if (this.running || !this.waiting) return;
    const { req, resolve } = this.waiting;
    this.waiting = undefined;
    this.running = { id: req.id, resolve };
    this.worker ??= this.start();
    this.worker.postMessage(req);
  }

  async close(): Promise<void> {
    this.waiting?.resolve({ superseded: true });
    this.waiting = undefined;
    const w = this.worker;
    this.worker = undefined;
    if (w) {
      w.removeAllListeners('exit');
      await w.terminate();
    }
    this.running?.resolve({ superseded: true });
    this.running = undefined;
  }
}
