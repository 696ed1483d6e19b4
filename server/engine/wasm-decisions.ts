// The Wasm side of an EvalCore's back end (the in-process evaluator or one pool
// worker), as the engine sees it. The core runs every decision through one Backend
// (compiler/backend.ts); with Wasm modules — the /policy.wasm of each active bundle
// that ships one (its manifest `wasm` entrypoints, as OPA evaluates wasm bundles), and
// with `--backend wasm` the module the engine's compile thread built from the policies
// (wasm-compiler.ts), which arrives in a later update than the policy itself — that is
// a WasmBackend over the JS back end: a decision whose path a module serves runs in
// it, everything else (and what a module aborts) on JS with the same data. This file
// orders the modules (bundle modules win shared paths) and reports their load errors
// and per-module counts.
import type { WasmBackend, WasmModuleSource, WasmModuleStats } from '../../compiler/index.js';
import type { WasmModuleSpec } from './wasm-modules.js';

/** The modules as the back end loads them: bundle modules first, so they win shared paths. */
export function wasmSources(specs: WasmModuleSpec[]): WasmModuleSource[] {
  const ordered = [...specs].sort((a, b) => Number(a.source === 'engine') - Number(b.source === 'engine'));
  return ordered.map((s) => ({ bytes: s.bytes, entrypoints: s.entrypoints, source: s.source }));
}

/** A view of the core's Wasm back end (none while the policy has no module). */
export class WasmDecisions {
  constructor(private readonly backend: () => WasmBackend | undefined) {}

  /** True when some module serves decisions. */
  get active(): boolean {
    return (this.backend()?.modules.length ?? 0) > 0;
  }

  /** Load errors (a module that does not instantiate is skipped). */
  get errors(): string[] {
    return [...(this.backend()?.errors ?? [])];
  }

  /** Per module: decisions served and fallbacks (tests, debugging). */
  stats(): Pick<WasmModuleStats, 'source' | 'wasm' | 'fallback' | 'entrypoints'>[] {
    return (this.backend()?.moduleStats() ?? []).map((m) => ({ source: m.source, wasm: m.wasm, fallback: m.fallback, entrypoints: m.entrypoints }));
  }
}
