// Loading of conformance cases: OPA's compliance suite (YAML files with a `cases:`
// list, see /work/shared/opa-conformance/README.md) plus our own cases in the same
// format under test/cases/. A case's folder is the name of its YAML file's parent
// directory; that is what the report groups by and what --folder selects.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { load } from 'js-yaml';
import { repoRoot, sharedDir } from '../shared-dir.js';

/** One case as written in the YAML (the fields of OPA's cases.TestCase). */
export interface CaseSpec {
  note: string;
  modules?: string[];
  data?: unknown;
  input?: unknown;
  input_term?: string;
  query: string;
  want_result?: Record<string, unknown>[] | null;
  sort_bindings?: boolean;
  want_error_code?: string;
  want_error?: string;
  strict_error?: boolean;
  ignore_generated_vars?: boolean;
  env?: Record<string, string>;
  /** Regent extension for our own cases: parse the modules as Rego v0 (`--v0-compatible`). */
  v0_compatible?: boolean;
}

/** A case plus where it came from. */
export interface LoadedCase extends CaseSpec {
  /**
   * Unique id: the note, or `note #N` for the N-th case with an already-used note
   * (upstream has a few duplicate notes). Baseline and skip list are keyed by it.
   */
  id: string;
  /** Path of the YAML file, relative to the directory it was loaded from. */
  file: string;
  /** Name of the YAML file's parent folder. */
  folder: string;
  /** 'opa' for the upstream suite, 'regent' for test/cases. */
  origin: 'opa' | 'regent';
}

export interface LoadProblem {
  file: string;
  message: string;
}

export interface LoadResult {
  cases: LoadedCase[];
  problems: LoadProblem[];
}

export { repoRoot };

/** Directory of OPA's suite: $REGENT_CONFORMANCE_DIR, or opa-conformance in the shared folder. */
export function suiteDir(): string {
  const env = process.env.REGENT_CONFORMANCE_DIR;
  return env ? resolve(env) : join(sharedDir(), 'opa-conformance');
}

/** Directory of our own cases. */
export function ownCasesDir(): string {
  return join(repoRoot, 'test', 'cases');
}

/** All .yaml/.yml files under `dir`, recursively, sorted by path. Missing dir → []. */
export function findYamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith('.')) continue;
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Parse one YAML file's text into case specs. Throws on malformed content. */
export function parseCases(text: string): CaseSpec[] {
  const doc = load(text) as { cases?: unknown } | null | undefined;
  if (doc === null || doc === undefined) return [];
  if (typeof doc !== 'object' || !Array.isArray(doc.cases)) throw new Error('expected a top-level `cases:` list');
  return doc.cases.map((c, i) => validateCase(c, i));
}

function validateCase(c: unknown, i: number): CaseSpec {
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new Error(`case #${i}: not a mapping`);
  const o = c as Record<string, unknown>;
  if (typeof o.note !== 'string' || o.note === '') throw new Error(`case #${i}: missing note`);
  if (typeof o.query !== 'string') throw new Error(`case ${o.note}: missing query`);
  if (o.modules !== undefined && o.modules !== null) {
    if (!Array.isArray(o.modules) || !o.modules.every((m) => typeof m === 'string'))
      throw new Error(`case ${o.note}: modules must be a list of strings`);
  }
  if (o.want_result !== undefined && o.want_result !== null && !Array.isArray(o.want_result))
    throw new Error(`case ${o.note}: want_result must be a list`);
  if (o.input_term !== undefined && o.input_term !== null && typeof o.input_term !== 'string')
    throw new Error(`case ${o.note}: input_term must be a string`);
  const spec: CaseSpec = { note: o.note, query: o.query };
  if (Array.isArray(o.modules)) spec.modules = o.modules as string[];
  if ('data' in o && o.data !== null) spec.data = o.data;
  if ('input' in o && o.input !== null) spec.input = o.input;
  if (typeof o.input_term === 'string') spec.input_term = o.input_term;
  if (Array.isArray(o.want_result)) spec.want_result = o.want_result as Record<string, unknown>[];
  if (o.sort_bindings === true) spec.sort_bindings = true;
  if (typeof o.want_error_code === 'string') spec.want_error_code = o.want_error_code;
  if (typeof o.want_error === 'string') spec.want_error = o.want_error;
  if (o.strict_error === true) spec.strict_error = true;
  if (o.ignore_generated_vars === true) spec.ignore_generated_vars = true;
  if (o.env && typeof o.env === 'object') spec.env = o.env as Record<string, string>;
  if (o.v0_compatible === true) spec.v0_compatible = true;
  return spec;
}

/** Load every case of the files under `dir`. Bad files become problems, not throws. */
export function loadDir(dir: string, origin: LoadedCase['origin']): LoadResult {
  const cases: LoadedCase[] = [];
  const problems: LoadProblem[] = [];
  for (const path of findYamlFiles(dir)) {
    const file = relative(dir, path);
    try {
      const folder = basename(dirname(path));
      for (const spec of parseCases(readFileSync(path, 'utf8'))) cases.push({ ...spec, id: spec.note, file, folder, origin });
    } catch (e) {
      problems.push({ file: path, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return { cases, problems };
}

export interface LoadOptions {
  /** Only cases whose folder is one of these (all when empty/absent). */
  folders?: string[];
  /** Override the suite directory (default suiteDir()). */
  suite?: string;
  /** Override our cases directory (default ownCasesDir()); null to leave them out. */
  own?: string | null;
}

/**
 * Load the upstream suite and our own cases. Every case gets a unique `id`: its note,
 * suffixed ` #2`, ` #3`… for repeated notes (in file order, which is stable).
 */
export function loadAll(opts: LoadOptions = {}): LoadResult {
  const suite = opts.suite ?? suiteDir();
  const upstream = loadDir(suite, 'opa');
  const ours = opts.own === null ? { cases: [], problems: [] } : loadDir(opts.own ?? ownCasesDir(), 'regent');
  const problems = [...upstream.problems, ...ours.problems];
  if (!existsSync(suite)) problems.push({ file: suite, message: 'conformance suite directory not found' });
  const seen = new Map<string, number>();
  const cases: LoadedCase[] = [];
  for (const c of [...upstream.cases, ...ours.cases]) {
    const n = (seen.get(c.note) ?? 0) + 1;
    seen.set(c.note, n);
    cases.push({ ...c, id: n === 1 ? c.note : `${c.note} #${n}` });
  }
  const wanted = opts.folders && opts.folders.length > 0 ? new Set(opts.folders) : undefined;
  return { cases: wanted ? cases.filter((c) => wanted.has(c.folder)) : cases, problems };
}
