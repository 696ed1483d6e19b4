// Unit tests of the conformance runner's parts that do not depend on the engine's
// correctness: YAML loading and validation, unique ids, row canonicalisation, error
// recognition, term conversion, the summary table and the baseline bookkeeping.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll, parseCases, type LoadedCase } from './load.js';
import { canonicalRows, regoErrorInfo, runCase, type CaseResult } from './run-case.js';
import { checkBaseline, formatTable, nextBaseline, summarize,
  summaryJSON, unknownSkips } from './report.js';
import { termToValue } from './term-value.js';
import { RegoError, RegoErrors, EvalError } from '../../compiler/index.js';
import { RObject, RSet, toJS } from '../../runtime/value/index.js';
import type { Term } from '../../compiler/ast/nodes.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'regent-conf-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const YAML_A = `---
cases:
  - note: alpha/one
    query: data.a.p = x
    modules:
      - |
        package a
        p := 1
    want_result:
      - x: 1
  - note: alpha/two
    query: x = 1
    want_result:
    sort_bindings: true
    strict_error: true
`;

describe('loading', () => {
  it('parses cases and normalises absent/null fields', () => {
    const cases = parseCases(YAML_A);
    expect(cases.map((c) => c.note)).toEqual(['alpha/one', 'alpha/two']);
    expect(cases[0]!.modules).toEqual(['package a\np := 1\n']);
    expect(cases[0]!.want_result).toEqual([{ x: 1 }]);
    expect('want_result' in cases[1]!).toBe(false);
    expect(cases[1]).toMatchObject({ sort_bindings: true, strict_error: true });
    expect(() => parseCases('cases:\n  - query: x\n')).toThrow(/missing note/);
    expect(() => parseCases('foo: 1\n')).toThrow(/cases/);
  });

  it('loads suite and own cases, names folders, gives duplicate notes unique ids', () => {
    const suite = tree({ 'v1/alpha/a.yaml': YAML_A, 'v1/beta/b.yaml': YAML_A.replace(/alpha\/two/, 'beta/x'), 'v1/broken/c.yaml': 'cases: [' });
    const own = tree({ 'every/e.yaml': YAML_A.replace(/alpha\/one/g, 'every/one').replace(/alpha\/two/g, 'every/two') });
    const r = loadAll({ suite, own });
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.file).toContain('broken');
    expect(r.cases.map((c) => `${c.folder}|${c.id}|${c.origin}`)).toEqual([
      'alpha|alpha/one|opa',
      'alpha|alpha/two|opa',
      'beta|alpha/one #2|opa',
      'beta|beta/x|opa',
      'every|every/one|regent',
      'every|every/two|regent',
    ]);
    expect(loadAll({ suite, own, folders: ['beta'] }).cases.map((c) => c.id)).toEqual(['alpha/one #2', 'beta/x']);
    expect(loadAll({ suite, own: null }).cases).toHaveLength(4);
  });
});

describe('judging helpers', () => {
  it('canonicalRows writes rows as canonical JSON, sorted unless ordered', () => {
    const rows: Parameters<typeof canonicalRows>[0] = [{ b: 1, a: [1, 2] }, { a: 'x' }, { a: [1, 2], b: 1 }];
    expect(canonicalRows(rows)).toEqual(['{"a":"x"}', '{"a":[1,2],"b":1}', '{"a":[1,2],"b":1}']);
    expect(canonicalRows(rows, true)).toEqual(['{"a":[1,2],"b":1}', '{"a":"x"}', '{"a":[1,2],"b":1}']);
    expect(canonicalRows([])).toEqual([]);
  });

  it('regoErrorInfo recognises Rego errors and their texts only', () => {
    const one = new RegoError('rego_type_error', 'bad type', { file: 'test-0.rego', row: 4, col: 1, offset: 0 });
    const info = regoErrorInfo(new RegoErrors([one, new RegoError('rego_unsafe_var_error', 'var x is unsafe')]));
    expect(info?.codes).toEqual(['rego_type_error', 'rego_unsafe_var_error']);
    expect(info?.text).toBe('2 errors occurred:\ntest-0.rego:4: rego_type_error: bad type\nrego_unsafe_var_error: var x is unsafe');
    const ev = regoErrorInfo(new EvalError('eval_type_error', 'operand 2 must be string', { file: 'test-0.rego', row: 4, col: 2, offset: 0 }));
    expect(ev).toEqual({ codes: ['eval_type_error'], text: 'test-0.rego:4: eval_type_error: operand 2 must be string' });
    expect(regoErrorInfo(new TypeError('x is not a function'))).toBeUndefined();
    expect(regoErrorInfo('eval_type_error')).toBeUndefined();
  });

  it('runCase skips listed cases and turns engine failures into results', () => {
    const base: LoadedCase = { id: 'f/n', note: 'f/n', folder: 'f', file: 'f/x.yaml', origin: 'opa', query: 'x = 1', modules: ['package p\n\np := \n'] };
    expect(runCase(base, { skip: { 'f/n': 'not yet' } })).toMatchObject({ status: 'skip', reason: 'not yet' });
    const r = runCase(base);
    expect(r.status).toBe('fail');
    expect(r.reason).toMatch(/unexpected compile (error|crash)/);
  });
});

describe('termToValue', () => {
  const l = { file: '', row: 1, col: 1, offset: 0 };
  const s = (value: string): Term => ({ kind: 'string', value, loc: l });
  const n = (value: number): Term => ({ kind: 'number', value, text: String(value), loc: l });

  it('converts ground terms, including sets, non-string keys and negative literals', () => {
    const t: Term = {
      kind: 'object',
      entries: [
        [s('set'), { kind: 'set', items: [n(2), n(1), n(2)], loc: l }],
        [n(1), { kind: 'array', items: [{ kind: 'null', loc: l }, { kind: 'boolean', value: true, loc: l }], loc: l }],
        [s('neg'), { kind: 'call', op: { kind: 'var', name: 'minus', loc: l }, args: [n(0), n(5)], loc: l }],
      ],
      loc: l,
    };
    const v = termToValue(t) as RObject;
    expect(v.get('set')).toBeInstanceOf(RSet);
    expect(toJS(v)).toEqual({ set: [1, 2], '1': [null, true], neg: -5 });
  });

  it('rejects non-ground terms', () => {
    expect(() => termToValue({ kind: 'var', name: 'x', loc: l })).toThrow(/not ground/);
    expect(() => termToValue({ kind: 'array', items: [{ kind: 'ref', head: { kind: 'var', name: 'input', loc: l }, path: [], loc: l }], loc: l })).toThrow(/not ground/);
  });
});

describe('report', () => {
  const res = (id: string, folder: string, status: CaseResult['status']): CaseResult => ({ id, folder, file: `${folder}.yaml`, status, ms: 1 });
  const results = [res('a/1', 'a', 'pass'), res('a/2', 'a', 'fail'), res('b/1', 'b', 'skip'), res('b/2', 'b', 'pass')];

  it('summarizes per folder and in total', () => {
    const s = summarize(results);
    expect(s).toMatchObject({ total: 4, passed: 2, failed: 1, skipped: 1 });
    expect(s.folders).toEqual({ a: { total: 2, passed: 1, failed: 1, skipped: 0, unsupported: 0 }, b: { total: 2, passed: 1, failed: 0, skipped: 1, unsupported: 0 } });
    const table = formatTable(s).split('\n');
    expect(table[0]).toMatch(/^a\s+1\/2\s+\(failed 1, skipped 0\)$/);
    expect(table.find((x) => x.startsWith('TOTAL'))).toMatch(/2\/4\s+\(failed 1, skipped 1\)/);
  });

  it('prints the JSON summary on one line, folders as [total, passed, failed, skipped]', () => {
    const text = summaryJSON(summarize(results));
    expect(text.includes('\n')).toBe(false);
    expect(JSON.parse(text)).toEqual({ total: 4, passed: 2, failed: 1, skipped: 1, folders: { a: [2, 1, 1, 0], b: [2, 1, 0, 1] } });
  });

  it('finds regressions, vanished cases and unknown skips; computes the next baseline', () => {
    const known = ['a/1', 'a/2', 'b/1', 'b/2', 'c/1'];
    expect(checkBaseline(results, ['a/1', 'a/2', 'b/1', 'gone', 'c/1'], known)).toEqual({ regressed: ['a/2', 'b/1'], missing: ['gone'] });
    expect(unknownSkips({ 'b/1': 'x', 'zzz': 'y' }, known)).toEqual(['zzz']);
    // c/1 did not run (filtered), so it stays; a/2 failed, so it goes; gone is dropped.
    expect(nextBaseline(results, ['a/2', 'c/1', 'gone'], known)).toEqual(['a/1', 'b/2', 'c/1']);
  });
});
