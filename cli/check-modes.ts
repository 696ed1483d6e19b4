// Two modes of `regent check` beyond plain files (cli/check.ts):
//
// `-b PATH…`: the paths are bundles (directories or tarballs), read as `opa check
// -b` reads them — with the bundle rules (manifest roots, per-file rego versions,
// `--ignore` globs), signatures not verified — and merged. Only their modules are
// checked, each with the Rego version the bundle gives it. When the bundles carry
// data, a rule defined where data exists is OPA's `conflicting rule for data path
// p/allow found` (its WithPathConflictsCheck).
//
// `--rego-v1`: OPA's RegoV0CompatV1 mode ("policies must be compatible with both
// Rego versions"). A module must
//   - parse as Rego v0: future keywords only where `import future.keywords…` or
//     `import rego.v1` brings them in (so `p contains x if …` without imports fails
//     with `var cannot be used for rule name`);
//   - pass the Rego v1 rule checks on top (`if` before a body, `contains` for a
//     multi-value rule, a value or body for every rule), as if it imported rego.v1;
//   - compile with the checks OPA runs for v1-compatible modules: root documents
//     must not be shadowed (`rules must not shadow input …`), imports must not
//     shadow imports, and no deprecated builtins (`any`, `re_match`, `cast_*` …).
// The compile runs on the v0 syntax trees, marked as v1 modules (that mark is what
// turns on the shadowing and duplicate-import stages of compiler/strict), with the
// v0 builtin set so deprecated builtins resolve and are reported by name.
import type { SourceFile } from '../compiler/api.js';
import type { Module } from '../compiler/ast/nodes.js';
import { parseModule } from '../compiler/parser/index.js';
import { Parser } from '../compiler/parser/parser.js';
import { checkRegoV1 } from '../compiler/parser/rules.js';
import { RegoError, RegoErrors } from '../compiler/source/diagnostics.js';
import { compileModules, type CompiledPolicy } from '../compiler/policy.js';
import { deprecatedBuiltinErrors } from '../compiler/strict/index.js';
import { RObject } from '../runtime/value/index.js';
import { pathConflictErrors, rulePathsOf } from '../compiler/passes/path-conflicts.js';
import { loadBundles } from './bundle-inputs.js';
import { toOutputErrors, type OutputError } from './output.js';

// ---------------------------------------------------------------- -b

export interface BundleSources {
  files: SourceFile[];
  /** The merged data, for the path-conflict check. */
  data: RObject;
}

/**
 * The modules of the bundles as source files, named as the user knows them. A
 * module whose version the bundle does not set keeps `v0Compatible` undefined when
 * `keepDefault` (so `--rego-v1` can apply its own mode), else gets the default.
 */
export async function bundleSources(paths: string[], opts: { v0: boolean; ignore: string[]; keepDefault?: boolean }): Promise<BundleSources> {
  const { bundle, fileNames, versioned } = await loadBundles(paths, { v0: opts.v0, ignore: opts.ignore, skipVerify: true });
  const files = bundle.modules.map((m): SourceFile => {
    const set = versioned.has(m.path);
    const version = m.regoVersion ?? (opts.v0 ? 0 : 1);
    return { file: fileNames.get(m.path) ?? m.path, text: m.text, ...(set || !opts.keepDefault ? { v0Compatible: version === 0 } : {}) };
  });
  return { files, data: bundle.data instanceof RObject ? bundle.data : new RObject() };
}

/** OPA's path-conflict check of rules against the bundles' data (nothing when there is no data). */
export function pathConflicts(modules: Module[], data: RObject): OutputError[] {
  if (data.size === 0) return [];
  return toOutputErrors({ errors: pathConflictErrors(rulePathsOf(modules), data) });
}

// ---------------------------------------------------------------- --rego-v1

/** Does the module import `rego.v1` (or `rego.v2`)? The parser then ran the v1 rule checks itself. */
function importsRego(m: Module): boolean {
  return m.imports.some((i) => i.path.kind === 'ref' && i.path.head.kind === 'var' && i.path.head.name === 'rego');
}

/** Parse `text` as OPA's RegoV0CompatV1: v0 syntax, then the v1 rule checks. Throws RegoErrors. */
export function parseV0CompatV1(text: string, file: string): Module {
  const mod = parseModule(text, file, { v0Compatible: true });
  if (!importsRego(mod)) {
    // The v1 checks need the parser's per-rule syntax facts, so run a parser of our own.
    const p = new Parser(text, file, { v0Compatible: true });
    for (const r of p.parseModule().rules) checkRegoV1(p, r);
    // These are CheckRegoV1's errors, which carry no source line (as OPA's).
    if (p.errors.length > 0) throw new RegoErrors([...p.errors].sort((a, b) => (a.location?.offset ?? 0) - (b.location?.offset ?? 0)));
  }
  // A v1-compatible module: the compiler's root-shadowing and duplicate-import stages apply.
  mod.regoVersion = 1;
  return mod;
}

/** Deprecated builtin calls, reported for v1-compatible modules as OPA does (strict mode reports them already). */
export function deprecatedCalls(policy: CompiledPolicy): OutputError[] {
  const sorted = [...policy.state.modules].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return toOutputErrors({ errors: sorted.flatMap(deprecatedBuiltinErrors) });
}

/**
 * Check files in RegoV0CompatV1 mode (a file whose `v0Compatible` is set — by its
 * bundle's manifest — keeps that version): parse errors of every file first, then
 * the compile errors, then `extra` (schema/capabilities) and deprecated builtin calls.
 */
export function checkRegoV1Files(files: SourceFile[], strict: boolean, extra?: (modules: Module[]) => OutputError[]): OutputError[] {
  const errors: OutputError[] = [];
  const modules: Module[] = [];
  for (const f of files) {
    try {
      modules.push(f.v0Compatible === undefined ? parseV0CompatV1(f.text, f.file) : parseModule(f.text, f.file, { v0Compatible: f.v0Compatible }));
    } catch (e) {
      if (!(e instanceof RegoErrors || e instanceof RegoError)) throw e;
      errors.push(...toOutputErrors(e));
    }
  }
  if (errors.length > 0) return errors;
  let policy: CompiledPolicy;
  try {
    policy = compileModules({ opts: { v0Compatible: true, strict }, modules, errors: [] });
  } catch (e) {
    return toOutputErrors(e);
  }
  const more = extra ? extra(policy.state.modules) : [];
  if (more.length > 0) return more;
  return strict ? [] : deprecatedCalls(policy);
}
