// `regent parse --dump-passes` / `--dump-ir`: compile one parsed module through the
// compiler pipeline and print what each pass produced (`dump(state)`), or the IR
// listing of the compiled policy (plus the plan of `--query Q` when given).
// Module dumps print as canonical Rego; strings verbatim; anything else as JSON.
import type { Module } from '../compiler/ast/nodes.js';
import { formatModule } from '../compiler/ast/print.js';
import { runPasses } from '../compiler/passes/index.js';
import type { CompileState } from '../compiler/passes/pass.js';
import { CompiledPolicy } from '../compiler/policy.js';
import { listIR, listQuery } from '../compiler/ir/listing.js';
import { toJSON } from './output.js';

function isModule(x: unknown): x is Module {
  return typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === 'module';
}

/** Printable text of a pass's dump. */
export function dumpText(x: unknown): string {
  if (x === undefined) return '';
  if (typeof x === 'string') return x;
  if (Array.isArray(x) && x.length > 0 && x.every(isModule)) {
    return x.map((m) => `# ${m.file}\n${formatModule(m)}`).join('\n');
  }
  if (isModule(x)) return formatModule(x);
  return toJSON(x);
}

export interface DumpOptions {
  passes: boolean;
  ir: boolean;
  v0Compatible: boolean;
  query?: string;
}

/**
 * Run the pipeline over `module`, returning the dump text. Compile errors
 * propagate (RegoErrors) after the passes that ran have been printed to `out`.
 */
export function dumpPipeline(module: Module, opts: DumpOptions, out: (s: string) => void): void {
  const state: CompileState = { opts: { v0Compatible: opts.v0Compatible }, modules: [module], errors: [] };
  runPasses(state, (pass, st) => {
    if (!opts.passes) return;
    const text = pass.dump ? dumpText(pass.dump(st)) : '';
    out(`=== pass ${pass.name} ===\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}`);
  });
  if (!opts.ir) return;
  out(`=== ir ===\n${listIR(state.ir!)}\n`);
  if (opts.query !== undefined) {
    const policy = new CompiledPolicy(state);
    out(`=== query ===\n${listQuery(policy.planQuery(opts.query))}\n`);
  }
}
