// Test discovery and execution for `regent test`, after OPA's tester (v1/tester/
// runner.go). The files are parsed here, then every later definition of a same-named
// `test_*` rule in a package is renamed `test_x#01`, `test_x#02`, … before the
// modules are compiled (OPA's RewriteDuplicateTestNames stage), so each definition
// is its own rule and its own test. A test is the rule's ground ref prefix up to the
// segment starting with `test_` (or `todo_test_`, reported SKIPPED); its query is a
// ref term `data.<package>.<rule ref>` built from the AST and printed canonically,
// never text pasted together, so package segments like `["entitlements:1.0"]` work.
// A test passes when its value is `true`; a test with cases (a dynamic ref tail, a
// partial object: `test_x[name] if …`) gets an injected internal.test_case call at
// compile time and one sub-result per case, and passes when no case failed
// (cli/test-cases.ts).
// With -t wasm (runWasmTests) every test path is an entrypoint of one Wasm module
// (compileSupportedWasm, unoptimized); each test is the module's decision for its path
// (`opa test -t wasm`); a test whose rule the Wasm back end refuses is an ERROR
// (`wasm_unsupported: not supported on wasm: …`); Wasm evaluation records no trace.
import type { Module, RefTerm, Rule, Term } from '../compiler/ast/nodes.js';
import { formatTerm } from '../compiler/ast/print.js';
import { parseModule } from '../compiler/parser/index.js';
import { compileModules, type CompiledPolicy } from '../compiler/policy.js';
import { RegoError, RegoErrors, WasmBackend, compileSupportedWasm, createBackend, prepareInterpreted, type TraceEvent } from '../compiler/index.js';
import type { SourceFile } from '../compiler/api.js';
import type { Value } from '../runtime/value/index.js';
import { errorLine, toOutputErrors } from './output.js';
import { injectTestCaseCalls, subResults, type SubResult } from './test-cases.js';

export const TEST_PREFIX = 'test_';
export const SKIP_TEST_PREFIX = 'todo_test_';

export interface TestResult {
  file: string;
  row: number;
  col: number;
  /** The package as OPA prints it: `data.a["b:c"].d`. */
  pkg: string;
  /** The rule ref as OPA prints it: `test_x`, `test_x#01`, `a.test_b`. */
  name: string;
  status: 'pass' | 'fail' | 'error' | 'skip';
  error?: string;
  durationNs: number;
  /** Trace events (recorded with -v or --coverage). */
  events: TraceEvent[];
  /** print() output. */
  output: string;
  /** The cases of a test with cases (cli/test-cases.ts), when it has any. */
  subResults?: Map<string, SubResult>;
}

export interface TestCase {
  rule: Rule;
  pkg: string;
  name: string;
  /** `data.<package>.<rule ref>` as a ref term, and as canonical query text. */
  query: RefTerm;
  queryText: string;
  skip: boolean;
  /** The head ref continues past the test name (a partial object of sub-tests). */
  object: boolean;
}

const NOWHERE = { file: '', row: 1, col: 1, offset: 0 };

/** Parse the files of a test run (OPA's loader does this: errors are loading errors). */
export function parseTestModules(files: SourceFile[], v0Compatible: boolean): Module[] {
  const modules: Module[] = [];
  const errors: RegoError[] = [];
  for (const f of files) {
    try {
      modules.push(parseModule(f.text, f.file, { v0Compatible: f.v0Compatible ?? v0Compatible }));
    } catch (e) {
      if (e instanceof RegoErrors) errors.push(...e.errors);
      else if (e instanceof RegoError) errors.push(e);
      else throw e;
    }
  }
  if (errors.length > 0) throw new RegoErrors(errors);
  return modules;
}

/** Compile parsed modules for a test run, renaming duplicate tests first (print erased for --bench, as opa). */
export function compileTests(modules: Module[], v0Compatible: boolean, printStatements = true): CompiledPolicy {
  rewriteDuplicateTestNames(modules);
  injectTestCaseCalls(modules);
  return compileModules({ opts: { v0Compatible, printStatements }, modules, errors: [] });
}

/** The package path as a ref term `data.a.b`. */
export function packageRef(m: Module): RefTerm {
  const path: Term[] = [];
  m.package.path.forEach((t, i) => {
    if (t.kind === 'var') {
      if (!(i === 0 && t.name === 'data')) path.push({ kind: 'string', value: t.name, loc: t.loc });
    } else if (t.kind === 'ref') {
      if (t.head.kind === 'var' && t.head.name !== 'data') path.push({ kind: 'string', value: t.head.name, loc: t.loc });
      path.push(...t.path);
    } else path.push(t);
  });
  return { kind: 'ref', head: { kind: 'var', name: 'data', loc: m.package.loc }, path, loc: m.package.loc };
}

function segmentName(t: Term): string | undefined {
  return t.kind === 'var' ? t.name : t.kind === 'string' ? t.value : undefined;
}

function ground(t: Term, i: number): boolean {
  return i === 0 ? t.kind === 'var' : t.kind === 'string' || t.kind === 'number' || t.kind === 'boolean' || t.kind === 'null';
}

/**
 * OPA's ruleName: walk the ground prefix of the head ref up to the first segment
 * named `test_*` or `todo_test_*`; that name and the ref up to it, or undefined.
 */
export function testRuleName(rule: Rule): { name: string; ref: Term[] } | undefined {
  const ref = rule.head.ref;
  for (let i = 0; i < ref.length && ground(ref[i]!, i); i++) {
    const n = segmentName(ref[i]!) ?? '';
    if (n.startsWith(TEST_PREFIX) || n.startsWith(SKIP_TEST_PREFIX)) return { name: n, ref: ref.slice(0, i + 1) };
  }
  return undefined;
}

function refText(terms: Term[]): string {
  const [head, ...rest] = terms;
  return formatTerm({ kind: 'ref', head: head!, path: rest, loc: NOWHERE });
}

function setHeadRef(rule: Rule, ref: Term[]): void {
  for (let r: Rule | undefined = rule; r; r = r.else) r.head = { ...r.head, ref };
}

/**
 * Rename the second and later definitions of each `test_*` rule (per package and
 * ref) to `test_x#01`, `test_x#02`, … in module order, keeping any dynamic tail.
 */
export function rewriteDuplicateTestNames(modules: Module[]): void {
  const count = new Map<string, number>();
  for (const m of modules) {
    const pkg = formatTerm(packageRef(m));
    for (const rule of m.rules) {
      const t = testRuleName(rule);
      if (!t || !t.name.startsWith(TEST_PREFIX)) continue;
      const key = pkg + '\u0000' + refText(t.ref);
      const k = count.get(key) ?? 0;
      if (k > 0) {
        const newName = `${t.name}#${String(k).padStart(2, '0')}`;
        const last = t.ref[t.ref.length - 1]!;
        const renamed: Term = t.ref.length === 1 ? { kind: 'var', name: newName, loc: last.loc } : { kind: 'string', value: newName, loc: last.loc };
        setHeadRef(rule, [...t.ref.slice(0, -1), renamed, ...rule.head.ref.slice(t.ref.length)]);
      }
      count.set(key, k + 1);
    }
  }
}

/** Every test rule of the modules, one per definition, in module and rule order. */
export function findTests(modules: Module[]): TestCase[] {
  const out: TestCase[] = [];
  for (const m of modules) {
    const pkgRef = packageRef(m);
    const pkg = formatTerm(pkgRef);
    for (const rule of m.rules) {
      if (rule.head.args) continue;
      const t = testRuleName(rule);
      if (!t) continue;
      const path = t.ref.map((s, i): Term => (i === 0 && s.kind === 'var' ? { kind: 'string', value: s.name, loc: s.loc } : s));
      const query: RefTerm = { kind: 'ref', head: pkgRef.head, path: [...pkgRef.path, ...path], loc: rule.loc };
      out.push({
        rule,
        pkg,
        name: refText(t.ref),
        query,
        queryText: formatTerm(query),
        skip: t.name.startsWith(SKIP_TEST_PREFIX),
        object: rule.head.ref.length > t.ref.length,
      });
    }
  }
  return out;
}

export interface RunOptions {
  data: unknown;
  timeoutMs: number;
  trace: boolean;
}

/** Evaluate one test (compiled closures, or the tracing interpreter with -v/--coverage). */
export function runTest(policy: CompiledPolicy, t: TestCase, opts: RunOptions): TestResult {
  const base = { file: t.rule.loc.file, row: t.rule.loc.row, col: t.rule.loc.col, pkg: t.pkg, name: t.name, events: [] as TraceEvent[], output: '' };
  if (t.skip) return { ...base, status: 'skip', durationNs: 0 };
  let output = '';
  const start = process.hrtime.bigint();
  const done = (r: Pick<TestResult, 'status' | 'error' | 'events' | 'subResults'>): TestResult => ({ ...base, ...r, output, durationNs: Number(process.hrtime.bigint() - start) });
  try {
    const testCases: { path: Value; at: number }[] = [];
    const evalOpts = { data: opts.data as never, deadline: Date.now() + opts.timeoutMs, print: (m: string) => void (output += m + '\n'), testCases };
    const traced = opts.trace ? prepareInterpreted(policy, t.queryText).evalWithTrace(evalOpts) : { rows: policy.prepare(t.queryText).eval(evalOpts), events: [] };
    if ('error' in traced && traced.error !== undefined) return done({ status: 'error', error: errorLine(toOutputErrors(traced.error)[0]!), events: traced.events });
    const value = traced.rows[0]?.expressions[0]?.value;
    if (t.object) {
      // OPA: a partial object of cases; each case is a sub-result (cli/test-cases.ts).
      const cases = subResults(value, testCases, traced.events);
      return done({ status: cases.fail ? 'fail' : 'pass', events: traced.events, ...(cases.results.size > 0 ? { subResults: cases.results } : {}) });
    }
    return done({ status: value === true ? 'pass' : 'fail', events: traced.events });
  } catch (e) {
    return done({ status: 'error', error: errorLine(toOutputErrors(e)[0]!), events: [] });
  }
}

/** The decision path of a test (`data.a.test_b` → ['a', 'test_b']), or undefined for non-string segments. */
function pathOf(t: TestCase): string[] | undefined {
  const out: string[] = [];
  for (const s of t.query.path) {
    if (s.kind !== 'string') return undefined;
    out.push(s.value);
  }
  return out;
}

/** Run the tests through one Wasm module. */
export async function runWasmTests(policy: CompiledPolicy, tests: TestCase[], opts: { data: Value; timeoutMs: number }): Promise<TestResult[]> {
  const paths = new Map<TestCase, string[]>();
  for (const t of tests) {
    const p = pathOf(t);
    if (!t.skip && p) paths.set(t, p);
  }
  const compiled = await compileSupportedWasm(policy, [...paths.values()], 0);
  const refused = new Map(compiled.refused.map((r) => [r.path.join('/'), r.reason]));
  const backend = compiled.wasm ? await createBackend('wasm', policy, { wasm: compiled.wasm }) : undefined;
  if (backend) backend.setData(opts.data);
  return tests.map((t) => {
    const base = { file: t.rule.loc.file, row: t.rule.loc.row, col: t.rule.loc.col, pkg: t.pkg, name: t.name, events: [] as TraceEvent[], output: '' };
    if (t.skip) return { ...base, status: 'skip', durationNs: 0 };
    const path = paths.get(t);
    const reason = path ? refused.get(path.join('/')) : 'test rule path is not a string path';
    if (reason !== undefined || !(backend instanceof WasmBackend)) return { ...base, status: 'error', error: `wasm_unsupported: ${reason ?? 'no wasm module'}`, durationNs: 0 };
    let output = '';
    const start = process.hrtime.bigint();
    const since = () => Number(process.hrtime.bigint() - start);
    try {
      const value = backend.decideInWasm(path!, { deadline: Date.now() + opts.timeoutMs, print: (m: string) => void (output += m + '\n') });
      if (t.object) {
        // The cases of the value (no calls are recorded in Wasm: failed cases are not listed).
        const cases = subResults(value, [], []);
        return { ...base, output, status: cases.fail ? 'fail' : 'pass', durationNs: since(), ...(cases.results.size > 0 ? { subResults: cases.results } : {}) };
      }
      return { ...base, output, status: value === true ? 'pass' : 'fail', durationNs: since() };
    } catch (e) {
      return { ...base, output, status: 'error', error: errorLine(toOutputErrors(e)[0] ?? { message: e instanceof Error ? e.message : String(e) }), durationNs: since() };
    }
  });
}
