// Two steps of `regent build` after the inputs compile (cli/build.ts runs them).
//   - `-O 1|2` (optimize): the optimizer of server/control-plane/builder/optimize.ts
//     (/optimized modules, pruned rules, the `partial` root), plus
//     `--partial-namespace NS`: the package of the negation support rules partial
//     evaluation generates (`data.partial.__not1_0_1__`); it must be a plain name
//     (OPA: `bad partial namespace`); the optimizer moves their package, references,
//     file names and the root it adds to NS; and `--debug`: OPA's optimizer lines
//     for each entrypoint.
//   - `-t wasm` (addWasm): /policy.wasm and the manifest's `wasm` entries. As in
//     opa, print calls are erased first (a body left empty is `true`) unless
//     `--wasm-include-print`; Regent's Wasm back end cannot compile print, so with
//     that flag a policy calling print() is refused with a clear error. Without
//     `--prune-unused`, every rule depending (transitively) on an entrypoint is an
//     entrypoint too (OPA's compilePlan adds them, sorted, after the given ones).
import type { Body, Expr, Module, Rule, Term } from '../compiler/ast/nodes.js';
import { parseModule } from '../compiler/parser/index.js';
import { compileModules, type CompiledPolicy } from '../compiler/policy.js';
import { rulePath } from '../compiler/passes/annotation-set.js';
import { packagePath } from '../compiler/passes/pass.js';
import { callsPrint, erasePrints } from '../compiler/passes/erase-print.js';
import { annotatedEntrypoints, compile, compileWasm, parseTerm, WasmUnsupportedError } from '../compiler/index.js';
import { dataRef, OptimizeError, optimizationEntrypoints, optimizeBundle } from '../server/control-plane/builder/optimize.js';
import type { Bundle } from '../runtime/bundles/index.js';
import { compareRefs, dependencies } from './deps.js';
import { BuildError } from './build-flags.js';

// ---------------------------------------------------------------- -O

const DEFAULT_NAMESPACE = 'partial';

/** The namespace to use: OPA keeps the default for an empty value and refuses anything but a name. */
export function partialNamespace(ns: string): string {
  if (ns === '') return DEFAULT_NAMESPACE;
  let kind: string;
  try {
    kind = parseTerm(ns).kind;
  } catch {
    kind = 'error'; // a keyword or bad syntax
  }
  if (kind !== 'var') throw new OptimizeError('bad partial namespace');
  return ns;
}

export interface OptimizeParams {
  given: string[];
  level: number;
  revision?: string;
  namespace: string;
  debug?: (line: string) => void;
}

/**
 * Partially evaluate the entrypoints (given, then METADATA ones) into /optimized
 * modules; the revision is reset unless -r. Returns the entrypoints it used.
 */
export function optimize(bundle: Bundle, p: OptimizeParams): string[] {
  const v0 = bundle.manifest.rego_version === 0;
  const policy = compile(bundle.modules.map((m) => ({ file: m.path, text: m.text, v0Compatible: m.regoVersion === undefined ? v0 : m.regoVersion === 0 })), { v0Compatible: v0 });
  const entrypoints = optimizationEntrypoints(p.given, annotatedEntrypoints(policy));
  // OPA checks the namespace when it partially evaluates, after the entrypoint count check
  const ns = entrypoints.length > 0 ? partialNamespace(p.namespace) : DEFAULT_NAMESPACE;
  for (const ep of entrypoints) {
    p.debug?.(`optimizer: entrypoint: ${dataRef(ep.split('/').filter((s) => s !== ''))}`);
    p.debug?.(`  partial-namespace: ${ns}`);
    p.debug?.(`  shallow-inlining: ${p.level <= 1}`);
  }
  const roots = bundle.manifest.roots ?? [''];
  const out = optimizeBundle({ modules: bundle.modules, data: bundle.data, roots, regoVersion: v0 ? 0 : 1, entrypoints, level: p.level, namespace: ns });
  bundle.modules = out.modules.map((m) => ({ ...m, regoVersion: v0 ? 0 : 1 }));
  bundle.manifest.roots = out.roots;
  bundle.manifest.revision = p.revision ?? '';
  delete bundle.manifest.file_rego_versions;
  return entrypoints;
}

// ---------------------------------------------------------------- -t wasm

/** The rule's head terms and bodies as one body, for following its references. */
function ruleAsBody(r: Rule): Body {
  const terms = [r.head.key, r.head.value, ...(r.head.args ?? []), ...r.head.ref.slice(1)].filter((t): t is Term => t !== undefined);
  const wrap = (term: Term): Expr => ({ kind: 'expr', negated: false, body: { type: 'term', term }, with: [], loc: term.loc });
  const bodies: Body = [];
  for (let x: Rule | undefined = r; x; x = x.else) bodies.push(...x.body);
  return [...terms.map(wrap), ...bodies];
}

const overlaps = (a: string[], b: string[]): boolean => a.every((s, i) => i >= b.length || s === b[i]) || b.every((s, i) => i >= a.length || s === a[i]);

/** OPA's transitive dependents of the entrypoints, as `pkg/rule` paths sorted by ref, not already entrypoints. */
export function entrypointDependents(modules: Module[], entrypoints: string[]): string[] {
  const targets = entrypoints.map((e) => e.split('/').filter((s) => s !== ''));
  const found = new Map<string, Term[]>();
  for (const m of modules) {
    const pkg = packagePath(m);
    for (const r of m.rules) {
      const path = rulePath(pkg, r);
      const key = path.join('/');
      if (found.has(key) || entrypoints.includes(key)) continue;
      const virtual = dependencies(modules, ruleAsBody(r)).virtual;
      const depends = virtual.some((ref) => {
        const segs = ref.slice(1).map((t) => (t.kind === 'string' ? t.value : ''));
        return targets.some((t) => overlaps(segs, t));
      });
      if (depends) found.set(key, [{ kind: 'var', name: 'data', loc: r.loc }, ...path.map((value): Term => ({ kind: 'string', value, loc: r.loc }))]);
    }
  }
  return [...found.entries()].sort((a, b) => compareRefs(a[1], b[1])).map(([k]) => k);
}

export interface WasmOptions {
  entrypoints: string[];
  optimize: number;
  includePrint: boolean;
  pruneUnused: boolean;
}

/** Compile the bundle's modules to /policy.wasm; returns a one-line size report. */
export async function addWasm(bundle: Bundle, o: WasmOptions): Promise<string> {
  const v0 = bundle.manifest.rego_version === 0;
  let modules = bundle.modules.map((m) => parseModule(m.text, m.path, { v0Compatible: m.regoVersion === undefined ? v0 : m.regoVersion === 0 }));
  if (o.includePrint) {
    const printing = modules.find(callsPrint);
    if (printing) throw new BuildError(`--wasm-include-print: print statements cannot be compiled to Wasm by regent (${printing.file} calls print); build without the flag to erase them, as opa does by default`);
  } else {
    modules = modules.map(erasePrints);
  }
  const policy: CompiledPolicy = compileModules({ opts: { v0Compatible: v0 }, modules, errors: [] });
  const given = [...new Set([...o.entrypoints, ...annotatedEntrypoints(policy)])];
  if (given.length === 0) throw new WasmUnsupportedError('a wasm build without entrypoints (give one or more -e pkg/rule, or METADATA entrypoint: true)');
  const eps = o.pruneUnused ? given : [...given, ...entrypointDependents(policy.modules, given)];
  const t = Date.now();
  const raw = await compileWasm(policy, eps, { optimize: o.optimize });
  bundle.wasmModules = [{ path: '/policy.wasm', raw }];
  bundle.manifest.wasm = eps.map((entrypoint) => ({ entrypoint, module: '/policy.wasm' }));
  return `policy.wasm: ${raw.length} bytes, ${eps.length} entrypoint(s) (${eps.join(', ')}), -O${o.optimize}, ${Date.now() - t} ms`;
}
