// OPA's WithPathConflictsCheck (v1/ast/compile.go CheckPathConflicts with
// storage.NonEmpty): a rule may not be defined where base data is. For each rule's
// data path (package + the ground prefix of its head ref), data at that path, or a
// non-object value above it (`{"p": 1}` against a rule at p/q), is
// `conflicting rule for data path p/q found` (rego_compile_error, at the rule).
// Used by `eval`, `test` and `check -b` against the data they load, and by the server
// against its store (server/engine/policies.ts).
import type { Module, Term } from '../ast/nodes.js';
import { RegoError } from '../source/diagnostics.js';
import { packagePath } from './pass.js';
import { RObject } from '../../runtime/value/index.js';
import { readPath } from '../../runtime/store/memory.js';
import { pathsOverlap } from '../../runtime/store/ownership.js';

export interface RulePath {
  path: string[];
  location: { file: string; row: number; col: number; offset: number };
}

/** Every rule's data path (package + ground head prefix), one entry per rule. */
export function rulePathsOf(modules: readonly Module[]): RulePath[] {
  const out: RulePath[] = [];
  for (const m of modules) {
    const pkg = packagePath(m);
    for (const r of m.rules) out.push({ path: [...pkg, ...headPath(r.head.ref)], location: r.loc });
  }
  return out;
}

/** The errors of rules defined where `data` has a value; `touched` limits the check to rules overlapping those paths. */
export function pathConflictErrors(rules: readonly RulePath[], data: RObject, touched?: string[][]): RegoError[] {
  const errors: RegoError[] = [];
  const seen = new Set<string>();
  for (const r of rules) {
    if (touched && !touched.some((p) => pathsOverlap(p, r.path))) continue;
    const key = r.path.join('/');
    if (seen.has(key)) continue;
    seen.add(key);
    if (nonEmpty(data, r.path)) errors.push(new RegoError('rego_compile_error', `conflicting rule for data path ${key} found`, r.location));
  }
  return errors;
}

/** OPA's storage.NonEmpty: data exists at `path`, or the nearest existing prefix of it is not an object. */
function nonEmpty(data: RObject, path: string[]): boolean {
  if (readPath(data, path) !== undefined) return true;
  for (let i = path.length - 1; i > 0; i--) {
    const v = readPath(data, path.slice(0, i));
    if (v !== undefined) return !(v instanceof RObject);
  }
  return false;
}

/** The ground prefix of a rule head ref as path segments. */
function headPath(ref: Term[]): string[] {
  const out: string[] = [];
  for (const [i, t] of ref.entries()) {
    if (i === 0 && t.kind === 'var') out.push(t.name);
    else if (t.kind === 'string') out.push(t.value);
    else break;
  }
  return out;
}
