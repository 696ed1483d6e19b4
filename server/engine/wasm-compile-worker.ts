// The Wasm compile thread (`--backend wasm`): compiles the engine's module set and
// then its Wasm module (binaryen: a few seconds to load once, then 0.5–1 s per
// policy), off the main thread and off the evaluation workers, which keep answering on
// the JS back end meanwhile. One request at a time; replies carry the request id.
import { parentPort } from 'node:worker_threads';
import { compile, type SourceFile } from '../../compiler/index.js';
import { buildWasmModules, type WasmBuildReport } from './wasm-modules.js';

export interface WasmCompileRequest {
  id: number;
  modules: SourceFile[];
  v0Compatible: boolean;
  /** Entrypoints bundle modules already serve (left out of the engine's module). */
  taken: string[][];
}

export interface WasmCompileReply {
  id: number;
  report: WasmBuildReport;
}

parentPort!.on('message', (req: WasmCompileRequest) => {
  void (async () => {
    let report: WasmBuildReport;
    try {
      const policy = compile(req.modules, { v0Compatible: req.v0Compatible });
      report = await buildWasmModules(policy, 'wasm', [{ source: 'taken', bytes: new Uint8Array(), entrypoints: req.taken }]);
      report.specs = report.specs.filter((s) => s.source === 'engine');
    } catch (e) {
      report = { specs: [], refused: [], error: e instanceof Error ? e.message : String(e) };
    }
    parentPort!.postMessage({ id: req.id, report } satisfies WasmCompileReply);
  })();
});
