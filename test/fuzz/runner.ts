// The fuzz loop: mutates seed inputs (seeds.ts, mutate.ts) and runs each through the
// parser and compiler (target.ts) in a worker thread, one input at a time, with a
// watchdog: an input still running after `hangMs` (default 5 s) is a hang, and its
// worker is terminated and replaced. Stops after `count` inputs or `seconds`,
// whichever comes first. Crashes (any non-Regent error) and hangs are saved to
// `outDir` as `<kind>-<n>.rego` plus a `.json` note (mutators, seed, message).
// The worker is esbuild-bundled plain JavaScript, so terminating it leaves no tsx
// loader state behind (node_modules/.cache/regent-fuzz/worker.mjs).
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { mutate, prng } from './mutate.js';
import { loadSeeds } from './seeds.js';
import type { FuzzInput, Outcome } from './target.js';

export interface FuzzOptions {
  count: number;
  seconds: number;
  seed: number;
  hangMs?: number;
  outDir: string;
  /** Also run each seed unmutated first (default true). */
  seedsFirst?: boolean;
  onProgress?: (s: FuzzStats) => void;
}

export interface Finding {
  kind: 'crash' | 'hang';
  file: string;
  message: string;
  ops: string[];
}

export interface FuzzStats {
  inputs: number;
  ok: number;
  errors: number;
  crashes: number;
  hangs: number;
  /** Structured error codes seen, with counts. */
  codes: Record<string, number>;
  findings: Finding[];
  seeds: { conformance: number; corpus: number };
  /** Structured errors that were stack overflows caught by the last line of defence (compile stage). */
  overflows: number;
  /** A few messages of the rarer codes (compile, recursion) to see what was hit. */
  samples: Record<string, string[]>;
  seconds: number;
  slowestMs: number;
  /** The slowest input is saved as `slowest.rego` in the output folder. */
  slowestOps: string[];
}

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');

/** Bundle worker.ts (and the compiler) into one plain ESM file; packages stay external. */
async function bundleWorker(): Promise<string> {
  const out = join(ROOT, 'node_modules', '.cache', 'regent-fuzz', `worker-${process.pid}.mjs`);
  await build({
    entryPoints: [join(HERE, 'worker.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20',
    packages: 'external', outfile: out, logLevel: 'silent',
  });
  return out;
}

class Runner {
  private worker: Worker | undefined;
  private pending: { id: number; resolve: (r: { outcome: Outcome; ms: number } | 'hang') => void; timer: NodeJS.Timeout } | undefined;
  private nextId = 0;
  private ready: Promise<void> = Promise.resolve();

  constructor(private readonly file: string, private readonly hangMs: number) {}

  private spawn(): void {
    const w = new Worker(this.file);
    this.worker = w;
    this.ready = new Promise((res, rej) => {
      const onFirst = (m: { ready?: boolean }): void => {
        if (m.ready) {
          w.off('message', onFirst);
          res();
        }
      };
      w.on('message', onFirst);
      w.once('error', rej);
    });
    w.on('message', (m: { id?: number; outcome?: Outcome; ms?: number }) => {
      const p = this.pending;
      if (p && m.id === p.id) {
        clearTimeout(p.timer);
        this.pending = undefined;
        p.resolve({ outcome: m.outcome!, ms: m.ms! });
      }
    });
    // Events of a worker already replaced (terminated after a hang) are ignored.
    w.on('error', (e: Error) => this.worker === w && this.fail(`worker error: ${e?.stack ?? e}`));
    w.on('exit', (code) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.fail(`worker exited with code ${code}`);
    });
  }

  /** The worker died under the current input: report it as a crash of that input. */
  private fail(message: string): void {
    const p = this.pending;
    if (!p) return;
    clearTimeout(p.timer);
    this.pending = undefined;
    p.resolve({ outcome: { kind: 'crash', message }, ms: 0 });
  }

  async run(input: FuzzInput): Promise<{ outcome: Outcome; ms: number } | 'hang'> {
    if (!this.worker) this.spawn();
    await this.ready;
    const w = this.worker!;
    const id = this.nextId++;
    return new Promise((res) => {
      const timer = setTimeout(() => {
        this.pending = undefined;
        this.worker = undefined;
        void w.terminate();
        res('hang');
      }, this.hangMs);
      this.pending = { id, resolve: res, timer };
      w.postMessage({ id, input });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
    rmSync(this.file, { force: true });
  }
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzStats> {
  const started = performance.now();
  const seeds = loadSeeds();
  const texts = seeds.inputs.map((s) => s.text);
  const r = prng(opts.seed);
  const runner = new Runner(await bundleWorker(), opts.hangMs ?? 5000);
  const stats: FuzzStats = {
    inputs: 0, ok: 0, errors: 0, crashes: 0, hangs: 0, codes: {}, findings: [],
    seeds: { conformance: seeds.conformance, corpus: seeds.corpus }, samples: {}, overflows: 0, seconds: 0, slowestMs: 0, slowestOps: [],
  };
  const deadline = started + opts.seconds * 1000;
  const save = (kind: 'crash' | 'hang', input: FuzzInput, ops: string[], message: string): void => {
    mkdirSync(opts.outDir, { recursive: true });
    const n = stats.findings.length;
    const file = join(opts.outDir, `${kind}-${n}.rego`);
    writeFileSync(file, input.text);
    writeFileSync(`${file}.json`, JSON.stringify({ kind, input: { kind: input.kind, v0: input.v0 }, ops, seed: opts.seed, message }, null, 2));
    stats.findings.push({ kind, file, message: message.split('\n').slice(0, 3).join(' | '), ops });
  };
  try {
    let i = 0;
    while (stats.inputs < opts.count && performance.now() < deadline) {
      let input: FuzzInput;
      let ops: string[] = [];
      if ((opts.seedsFirst ?? true) && i < seeds.inputs.length) input = seeds.inputs[i]!;
      else {
        const base = seeds.inputs[Math.floor(r() * seeds.inputs.length)]!;
        const m = mutate(base.text, r, texts);
        // Now and then parse in the other Rego version (v1 policies as v0 and back).
        input = { ...base, text: m.text, v0: r() < 0.1 ? !base.v0 : base.v0 };
        ops = m.ops;
      }
      i++;
      const res = await runner.run(input);
      stats.inputs++;
      if (res === 'hang') {
        save('hang', input, ops, `no result after ${opts.hangMs ?? 5000} ms`);
        stats.hangs++;
      } else {
        if (res.ms > stats.slowestMs) {
          stats.slowestMs = res.ms;
          stats.slowestOps = ops;
          if (res.ms > 500) {
            mkdirSync(opts.outDir, { recursive: true });
            writeFileSync(join(opts.outDir, 'slowest.rego'), input.text);
          }
        }
        const o = res.outcome;
        if (o.kind === 'ok') stats.ok++;
        else if (o.kind === 'error') {
          stats.errors++;
          stats.codes[o.code] = (stats.codes[o.code] ?? 0) + 1;
          if (o.message.includes('maximum depth exceeded')) {
            stats.overflows++;
            save('crash', input, ops, `caught stack overflow (counted as a structured error): ${o.message}`);
          }
          if (o.code !== 'rego_parse_error') {
            const list = (stats.samples[o.code] ??= []);
            const m = o.message.slice(0, 120);
            if (list.length < 6 && !list.includes(m)) list.push(m);
          }
        } else {
          save('crash', input, ops, o.message);
          stats.crashes++;
        }
      }
      if (opts.onProgress && stats.inputs % 1000 === 0) opts.onProgress({ ...stats, seconds: (performance.now() - started) / 1000 });
    }
  } finally {
    await runner.close();
  }
  stats.seconds = (performance.now() - started) / 1000;
  return stats;
}
