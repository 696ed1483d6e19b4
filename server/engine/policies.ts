// The policy modules of the engine: id → {id, raw, module}. Ids are management
// names (a file path, the path used on PUT, or `<bundle>/<path>`), unrelated to
// the package. This file also derives what the data checks need from a compiled
// module set: the paths of all rules (for the path-conflict check and for telling
// "document missing" from "document undefined").
import { parseModule, pathConflictErrors, rulePathsOf, type CompiledPolicy, type Module, type RulePath, type SourceFile } from '../../compiler/index.js';
import { pathsOverlap, type RObject } from '../../runtime/index.js';
import { PathConflictError } from './errors.js';

export interface PolicyRecord {
  id: string;
  raw: string;
  module: Module;
  /** Name of the bundle that owns the module, if any. */
  bundle?: string;
  /** Parse as Rego v0 (bundle rego_version 0, or the server's --v0-compatible). */
  v0Compatible?: boolean;
  /** The package path, when known without parsing (a record made by lazyRecord). */
  pkg?: string[];
}

/**
 * A record whose module was parsed (and found valid) on another thread: the AST is
 * parsed here only when something reads it (GET /v1/policies, the authorization body
 * check, data filters).
 */
export function lazyRecord(id: string, raw: string, pkg: string[], v0Compatible: boolean): PolicyRecord {
  let module: Module | undefined;
  return {
    id,
    raw,
    pkg,
    get module(): Module {
      return (module ??= parseModule(raw, id, { v0Compatible }));
    },
  };
}

/** The package path of a record's module (without parsing a lazy record). */
export function recordPackage(r: PolicyRecord): string[] {
  return r.pkg ?? packagePath(r.module);
}

export function toSourceFiles(records: Iterable<PolicyRecord>): SourceFile[] {
  return [...records].map((r) => ({ file: r.id, text: r.raw, ...(r.v0Compatible === undefined ? {} : { v0Compatible: r.v0Compatible }) }));
}

/** The package path of a module as data path segments (`package a.b` → ['a','b']). */
export function packagePath(m: Module): string[] {
  const terms = m.package.path[0]?.kind === 'var' && m.package.path[0].name === 'data' ? m.package.path.slice(1) : m.package.path;
  return terms.map((t) => (t.kind === 'string' ? t.value : t.kind === 'var' ? t.name : ''));
}

/** True when a module has no statements besides comments (OPA: "empty module"). */
export function isEmptyModule(text: string): boolean {
  return text.split('\n').every((line) => line.trim() === '' || line.trim().startsWith('#'));
}

export type { RulePath };

/** Every rule's data path (package + ground head prefix), one entry per rule. */
export function rulePaths(policy: CompiledPolicy): RulePath[] {
  return rulePathsOf(policy.modules);
}

/**
 * OPA's path-conflict check: base data must not exist where a rule is defined.
 * `touched` limits the check to rules overlapping the written paths.
 */
export function checkPathConflicts(rules: RulePath[], data: RObject, touched?: string[][]): void {
  const errors = pathConflictErrors(rules, data, touched);
  if (errors.length > 0) throw new PathConflictError(errors);
}

/** True when some rule defines `path` or a prefix of it. */
export function hasRulesFor(rules: RulePath[], path: string[]): boolean {
  return rules.some((r) => r.path.length <= path.length && pathsOverlap(r.path, path));
}
