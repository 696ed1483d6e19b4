// `regent test` flags OPA users run in CI, against `opa test`'s output and exit codes:
// -b/--bundle (directories and archives), --fail-on-empty, --explain (trace tables as
// the PrettyReporter's indenting writer prints them), --count, -p/--parallel (report
// order by file name), --var-values (failure lines), -m/--max-errors, --capabilities,
// -s/--schema, -t/--target wasm, --v1-compatible, -w/--watch, and the refusals of
// opaTest (threshold range, gobench without --bench, coverage while benchmarking).
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testCommand } from '../../../cli/test.js';
import { WATCH_BANNER } from '../../../cli/test-load.js';
import { failureLine, traceTable } from '../../../cli/test-trace.js';
import { parseModule } from '../../../compiler/parser/index.js';
import { fromJS, RObject } from '../../../runtime/value/index.js';
import { writeBundle } from '../../../runtime/bundles/index.js';
import type { TraceEvent } from '../../../compiler/index.js';
import { capture, tempTree } from './helpers.js';

const TESTS = `package t

allow if input.role == "admin"

test_admin if allow with input as {"role": "admin"}

test_user if {
	trace("checking user")
	x := 1
	allow with input as {"role": "user"}
}
`;

const t = tempTree({
  't_test.rego': TESTS,
  'b/z_test.rego': 'package z\n\ntest_z if true\n',
  'b/a_test.rego': 'package a\n\ntest_a if true\n',
  'bundle/.manifest': '{"roots": ["sub", "x"]}',
  'bundle/sub/data.json': '{"v": 1}',
  'bundle/sub/other.json': '{"v": 2}',
  'bundle/x/x_test.rego': 'package x\n\ntest_d if data.sub.v == 1\n\ntest_e if not data.sub.other\n',
  'broken/x.rego': 'package x\n\ntest_y if {\n',
  'caps/c_test.rego': 'package c\n\ntest_c if strings.count("aaa", "a") == 3\n\ntest_d if uuid.parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8").version == 1\n',
  'caps0/c_test.rego': 'package c\n\ntest_c { strings.count("aaa", "a") == 3 }\n\ntest_d { uuid.parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8").version == 1 }\n',
  'schema/input.json': '{"type": "object", "properties": {"x": {"type": "string"}}}',
  'schemed/s_test.rego': 'package s\n\ntest_s if input.x.y == 1 with input as {"x": {"y": 1}}\n',
  'empty/e.rego': 'package e\n\np := 1\n',
  'v0/v0_test.rego': 'package v0\n\ntest_old { 1 == 1 }\n',
  'vals/v_test.rego': 'package v\n\ninc(x) := x + 1\n\ntest_inc if {\n\ty := 3\n\tz := inc(y)\n\tz == y + 2\n}\n',
  'wasm/w_test.rego': 'package w\n\nallow if input.x == 1\n\ntest_ok if allow with input as {"x": 1}\n\ntest_no if allow with input as {"x": 2}\n\ntest_print if {\n\tprint("hi")\n}\n',
});
afterAll(() => t.cleanup());

const DUR = /\((\d+(\.\d+)?(ns|µs|ms|s))\)/g;
const HL = '-'.repeat(80);
const file = join(t.dir, 't_test.rego');

async function run(...argv: string[]) {
  const c = capture();
  const code = await testCommand(argv, c.io);
  return { code, out: c.out.replace(DUR, '(T)'), err: c.err };
}

/** The first line of a usage error (the usage text follows). */
function usageLine(err: string): string {
  return err.split('\n')[0]!;
}

describe('regent test -b/--bundle', () => {
  it('loads a directory with bundle conventions: only data.json files are data, modules named dir/path', async () => {
    const dir = join(t.dir, 'bundle');
    const r = await run('-v', '-b', dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe([`${join(dir, 'x/x_test.rego')}:`, 'data.x.test_d: PASS (T)', 'data.x.test_e: PASS (T)', HL, 'PASS: 2/2', ''].join('\n'));
    // without -b every JSON file is data: other.json conflicts with data.json at data.sub
    // --ignore applies to the bundle's file names
    expect(await run('-b', '--ignore', '*_test.rego', '--fail-on-empty', dir)).toEqual({ code: 1, out: '', err: 'no tests were run\n' });
    const plain = await run(dir);
    expect(plain.code).toBe(1);
    expect(plain.err).toBe(`1 error occurred during loading: ${join(dir, 'sub/other.json')}: merge error\n`);
  });

  it('loads a bundle archive, its modules named by their bundle paths', async () => {
    const archive = join(t.dir, 'bundle.tar.gz');
    const data = new RObject().set('sub', new RObject().set('v', 1));
    writeFileSync(archive, await writeBundle({ manifest: {}, modules: [{ path: '/x/x_test.rego', text: 'package x\n\ntest_d if data.sub.v == 1\n' }], data }));
    const r = await run('--bundle', '-v', archive);
    expect(r.code).toBe(0);
    expect(r.out).toBe(['/x/x_test.rego:', 'data.x.test_d: PASS (T)', HL, 'PASS: 1/1', ''].join('\n'));
  });

  it('reports bundles that cannot be loaded as OPA does (exit 1)', async () => {
    const missing = join(t.dir, 'nope');
    const r = await run('-b', missing);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(`unable to load bundle ${missing}: error reading "${missing}": stat ${missing}: no such file or directory\n`);
    const broken = join(t.dir, 'broken');
    const b = await run('-b', broken);
    expect(b.code).toBe(1);
    expect(b.err.startsWith(`unable to load bundle ${broken}: bundle ${broken}: 1 error occurred: ${join(broken, 'x.rego')}:`)).toBe(true);
    expect(b.err).toMatch(/x\.rego:\d+: rego_parse_error: unexpected eof token/);
  });
});

describe('regent test --fail-on-empty', () => {
  it('fails with "no tests were run" when no test ran', async () => {
    const dir = join(t.dir, 'empty');
    expect(await run(dir)).toEqual({ code: 0, out: '', err: '' });
    expect(await run('--fail-on-empty', dir)).toEqual({ code: 1, out: '', err: 'no tests were run\n' });
    expect(await run('--fail-on-empty', '-f', 'json', dir)).toEqual({ code: 1, out: '[]\n', err: 'no tests were run\n' });
    expect(await run('--fail-on-empty', '-r', 'nothing', file)).toEqual({ code: 1, out: '', err: 'no tests were run\n' });
    const ran = await run('--fail-on-empty', '-r', 'admin', file);
    expect(ran).toEqual({ code: 0, out: 'PASS: 1/1\n', err: '' });
  });
});

describe('regent test --explain', () => {
  const summary = ['SUMMARY', HL, `${file}:`, 'data.t.test_admin: PASS (T)', 'data.t.test_user: FAIL (T)', HL, 'PASS: 1/2', 'FAIL: 1/2', ''];

  /** One row of a trace table whose location column is `width` wide. */
  const row = (loc: string, width: number, event: string) => '  ' + loc.padEnd(width + 4) + ' ' + '  ' + event + '  ';

  it('notes: the lineage of trace() notes, listing every test (explain implies verbose)', async () => {
    const r = await run('--explain', 'notes', file);
    expect(r.code).toBe(2);
    const w = file.length + 2;
    const table = [row('query:1', w, 'Enter data.t.test_user = _'), row(`${file}:7`, w, '| Enter data.t.test_user'), row(`${file}:8`, w, '| | Note "checking user"')];
    expect(r.out).toBe(['FAILURES', HL, 'data.t.test_user: FAIL (T)', '', ...table, '', ...summary].join('\n'));
  });

  it('fails: the lineage of Fail events; -v alone shows notes and fails', async () => {
    const r = await run('--explain=fails', file);
    expect(r.code).toBe(2);
    const w = file.length + 3;
    const table = [
      row('query:1', w, 'Enter data.t.test_user = _'),
      row(`${file}:7`, w, '| Enter data.t.test_user'),
      row(`${file}:3`, w, '| | Enter data.t.allow'),
      row(`${file}:3`, w, '| | | Fail input.role == "admin"'),
      row(`${file}:10`, w, '| | Fail data.t.allow with input as {"role": "user"}'),
      row('query:1', w, '| Fail data.t.test_user = _'),
    ];
    expect(r.out).toBe(['FAILURES', HL, 'data.t.test_user: FAIL (T)', '', ...table, '', ...summary].join('\n'));
    const v = await run('-v', file);
    expect(v.out).toContain(row(`${file}:8`, w, '| | Note "checking user"') + '\n' + row(`${file}:3`, w, '| | Enter data.t.allow') + '\n');
  });

  it('full: every event; JSON reports carry the trace; bad modes are usage errors', async () => {
    const r = await run('--explain', 'full', file);
    expect(r.out).toMatch(/\| \| \| Eval input\.role == "admin" {2}\n/);
    const json = JSON.parse((await run('--explain', 'notes', '-f', 'json', file)).out);
    expect(json[1].trace.map((e: { Op: string }) => e.Op)).toEqual(['Enter', 'Enter', 'Note']);
    expect(Object.keys(json[1].trace[2])).toEqual(['Op', 'Node', 'Location', 'QueryID', 'ParentID', 'Locals', 'LocalMetadata', 'Message', 'Ref']);
    expect(json[1].trace[2]).toMatchObject({ Op: 'Note', Message: 'checking user', Location: { file, row: 8, col: 2 } });
    const bad = await run('--explain', 'everything', file);
    expect(bad.code).toBe(1);
    expect(usageLine(bad.err)).toBe('Error: invalid argument "everything" for "--explain" flag: must be one of {fails,full,notes,debug}');
  });
});

describe('regent test trace formatting (PrettyReporter)', () => {
  it('indents each cell and ends each line in two spaces, as the indenting writer does', () => {
    const expr = parseModule('package p\n\nr if {\ntrue = false\n}\n', 'p.rego').rules[0]!.body[0]!;
    const e: TraceEvent = { op: 'Fail', queryId: 0, parentId: 0, node: { type: 'expr', node: expr }, locals: [], location: { file: '', row: 1, col: 1, offset: 0 } };
    expect(traceTable([e])).toBe('  query:1       | Fail true = false  \n');
  });

  it('draws variable values under the failing expression', () => {
    const src = 'package p\n\nr if {\nx == y + z\n}\n';
    const expr = parseModule(src, 'policy1.rego').rules[0]!.body[0]!;
    const locals = [
      { name: 'x', value: fromJS(1) },
      { name: 'y', value: fromJS(2) },
      { name: 'z', value: fromJS(3) },
    ];
    const e: TraceEvent = { op: 'Fail', queryId: 1, parentId: 0, node: { type: 'expr', node: expr }, locals, location: expr.loc };
    expect(failureLine([e], new Map([['policy1.rego', src]]))).toBe('  policy1.rego:4:\n    x == y + z\n    |    |   |\n    |    |   3\n    |    2\n    1\n');
    expect(failureLine([{ ...e, queryId: 0 }], new Map())).toBe('');
  });
});

describe('regent test --count', () => {
  it('runs the tests N times, stopping at the first failing round', async () => {
    const dir = join(t.dir, 'b');
    expect(await run('--count', '2', dir)).toEqual({ code: 0, out: 'PASS: 2/2\nPASS: 2/2\n', err: '' });
    const failing = await run('--count', '3', '-r', 'user', file);
    expect(failing.code).toBe(2);
    expect(failing.out).toBe([`${file}:`, 'data.t.test_user: FAIL (T)', HL, 'FAIL: 1/1', ''].join('\n'));
    // zero rounds: nothing is compiled or run
    expect(await run('--count', '0', join(t.dir, 'caps'), '--capabilities', 'v0.56.0')).toEqual({ code: 0, out: '', err: '' });
    const bad = await run('--count', 'two', dir);
    expect(bad.code).toBe(1);
    expect(usageLine(bad.err)).toBe('Error: invalid argument "two" for "--count" flag: strconv.ParseInt: parsing "two": invalid syntax');
  });
});

describe('regent test -p/--parallel', () => {
  it('accepts any parallelism and reports by file name, then rule order', async () => {
    const a = join(t.dir, 'b', 'a_test.rego');
    const z = join(t.dir, 'b', 'z_test.rego');
    const expected = [`${a}:`, 'data.a.test_a: PASS (T)', '', `${z}:`, 'data.z.test_z: PASS (T)', HL, 'PASS: 2/2', ''].join('\n');
    for (const p of ['1', '4', '0']) expect(await run('-v', '-p', p, z, a)).toEqual({ code: 0, out: expected, err: '' });
    expect(await run('-v', '--parallel=2', join(t.dir, 'b'))).toEqual({ code: 0, out: expected, err: '' });
    const bad = await run('-p', 'many', z);
    expect(usageLine(bad.err)).toBe('Error: invalid argument "many" for "-p, --parallel" flag: strconv.ParseInt: parsing "many": invalid syntax');
  });
});

describe('regent test --var-values', () => {
  it('lists failures with the failing expression at its column', async () => {
    const r = await run('--var-values', file);
    expect(r.code).toBe(2);
    expect(r.out).toBe(
      [
        'FAILURES',
        HL,
        'data.t.test_user: FAIL (T)',
        '',
        `  ${file}:10:`,
        '    \tallow with input as {"role": "user"}',
        // The rule is undefined under the replacement (OPA's "rule not defined" case).
        '    \t|',
        '    \tundefined',
        '',
        'SUMMARY',
        HL,
        `${file}:`,
        'data.t.test_user: FAIL (T)',
        HL,
        'PASS: 1/2',
        'FAIL: 1/2',
        '',
      ].join('\n'),
    );
  });
});

describe('regent test --var-values: values from rule bodies', () => {
  it('draws the values of the failing expression\'s variables under it', async () => {
    const v = join(t.dir, 'vals', 'v_test.rego');
    const r = await run('--var-values', v);
    expect(r.code).toBe(2);
    // OPA's PrettyEvent with PrettyVars: a `|` per variable, then each value, the rightmost first.
    // The call's value shares y's column, so both are named (as OPA's `x == y + z` case).
    expect(r.out.split('\n').slice(3, 11)).toEqual(['', `  ${v}:8:`, '    \tz == y + 2', '    \t|    |', '    \t|    y + 2: 5', '    \t|    y: 3', '    \t4', '']);
  });

  it('adds the expression variables column to the verbose trace', async () => {
    const r = await run('--var-values', '--explain', 'full', join(t.dir, 'vals'));
    const evalLine = r.out.split('\n').find((l) => l.includes('| | Eval z == y + 2'));
    expect(evalLine).toMatch(/\| \| Eval z == y \+ 2\s+\{y: 3, z: 4\}  $/);
    expect(r.out).toMatch(/\| \| Enter data\.v\.inc\s+\{x: 3\}  \n/);
  });
});

describe('regent test -m/--max-errors, --capabilities, -s/--schema', () => {
  const caps = join(t.dir, 'caps');
  const caps0 = join(t.dir, 'caps0');
  const c0 = join(caps0, 'c_test.rego');

  it('limits the builtins to a capabilities version', async () => {
    const r = await run('--v0-compatible', '--capabilities', 'v0.56.0', caps0);
    expect(r).toEqual({
      code: 1,
      out: '',
      err: `2 errors occurred:\n${c0}:3: rego_type_error: undefined function strings.count\n${c0}:5: rego_type_error: undefined function uuid.parse\n`,
    });
    // A release before v1.0.0 has no rego_v1 feature: its parser refuses v1 modules (OPA's Parser.Parse).
    expect(await run('--capabilities', 'v0.56.0', caps)).toEqual({ code: 1, out: '', err: '1 error occurred: rego_parse_error: illegal capabilities: rego_v1 feature required for parsing v1 Rego\n' });
    expect(await run('--capabilities', 'v1.0.0', caps)).toEqual({ code: 0, out: 'PASS: 2/2\n', err: '' });
    const bad = await run('--capabilities', 'v0.0.1', caps);
    expect(bad.code).toBe(1);
    expect(usageLine(bad.err)).toBe('Error: invalid argument "v0.0.1" for "--capabilities" flag: no such file or capabilities version found: v0.0.1');
  });

  it('stops at -m errors with "error limit reached"', async () => {
    const r = await run('-m', '1', '--v0-compatible', '--capabilities', 'v0.56.0', caps0);
    expect(r).toEqual({ code: 1, out: '', err: `2 errors occurred:\n${c0}:3: rego_type_error: undefined function strings.count\nrego_compile_error: error limit reached\n` });
    expect((await run('--max-errors', '0', '--v0-compatible', '--capabilities', 'v0.56.0', caps0)).err.startsWith('2 errors occurred:\n')).toBe(true);
  });

  it('type-checks input refs against a schema', async () => {
    const dir = join(t.dir, 'schemed');
    expect(await run(dir)).toEqual({ code: 0, out: 'PASS: 1/1\n', err: '' });
    const r = await run('-s', join(t.dir, 'schema', 'input.json'), dir);
    expect(r.code).toBe(1);
    expect(r.err.startsWith(`1 error occurred: ${join(dir, 's_test.rego')}:3: rego_type_error: undefined ref: input.x.y\n`)).toBe(true);
    const missing = join(t.dir, 'schema', 'nope.json');
    expect(await run('--schema', missing, dir)).toEqual({ code: 1, out: '', err: `1 error occurred during loading: stat ${missing}: no such file or directory\n` });
  });
});

describe('regent test --v1-compatible, --v0-compatible', () => {
  it('accepts --v1-compatible (the default); --v0-compatible takes precedence', async () => {
    expect(await run('--v1-compatible', join(t.dir, 'b'))).toEqual({ code: 0, out: 'PASS: 2/2\n', err: '' });
    const v0 = join(t.dir, 'v0');
    expect((await run('--v1-compatible', v0)).code).toBe(1);
    expect(await run('--v0-compatible', '--v1-compatible', v0)).toEqual({ code: 0, out: 'PASS: 1/1\n', err: '' });
  });
});

describe("regent test: opaTest's refusals", () => {
  it('checks the threshold, gobench and coverage with --bench as OPA does', async () => {
    const dir = join(t.dir, 'b');
    expect(await run('--threshold', '101', dir)).toEqual({ code: 1, out: '', err: 'Code coverage threshold must be between 0 and 100\n' });
    expect(await run('-f', 'gobench', dir)).toEqual({ code: 0, out: '', err: 'cannot use output format gobench without running benchmarks (--bench)\n' });
    const msg = 'coverage reporting is not supported when benchmarking tests\n';
    expect(await run('--bench', '--coverage', dir)).toEqual({ code: 1, out: '', err: msg + msg });
    const t2 = await run('-t', 'js', dir);
    expect(t2.code).toBe(1);
    expect(usageLine(t2.err)).toBe('Error: invalid argument "js" for "-t, --target" flag: must be one of {rego,wasm}');
  });
});

describe('regent test -w/--watch', () => {
  it('runs the tests again on change and prints the watch banner', async () => {
    const w = tempTree({ 'w_test.rego': 'package w\n\ntest_w if true\n' });
    try {
      const c = capture();
      let stop!: () => void;
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      const done = testCommand(['-w', w.dir], c.io, { stop: stopped });
      await until(() => c.out.includes(WATCH_BANNER));
      writeFileSync(join(w.dir, 'w_test.rego'), 'package w\n\ntest_w if false\n');
      await until(() => c.out.split(WATCH_BANNER).length === 3);
      // a reload that fails is printed on stdout, and the watch goes on
      writeFileSync(join(w.dir, 'w_test.rego'), 'package w\n\ntest_w if {\n');
      await until(() => c.out.split(WATCH_BANNER).length === 4);
      stop();
      expect(await done).toBe(0);
      const failed = [`${join(w.dir, 'w_test.rego')}:`, 'data.w.test_w: FAIL (T)', HL, 'FAIL: 1/1', ''].join('\n');
      const [first, second, third, rest] = c.out.replace(DUR, '(T)').split(WATCH_BANNER);
      expect([first, second, rest]).toEqual(['PASS: 1/1\n', failed, '']);
      expect(third).toMatch(new RegExp(`^1 error occurred during loading: ${join(w.dir, 'w_test.rego').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: rego_parse_error: unexpected eof token\\n`));
      expect(c.err).toBe('');
      expect(WATCH_BANNER).toBe('*'.repeat(80) + '\nWatching for changes ...\n');
    } finally {
      w.cleanup();
    }
  }, 20_000);
});

describe('regent test -t wasm', () => {
  it('runs the tests on the Wasm back end; refused constructs are errors', async () => {
    const dir = join(t.dir, 'wasm');
    const r = await run('-t', 'wasm', dir);
    expect(r.code).toBe(2);
    expect(r.out).toBe(
      [
        `${join(dir, 'w_test.rego')}:`,
        'data.w.test_no: FAIL (T)',
        'data.w.test_print: ERROR (T)',
        '  wasm_unsupported: not supported on wasm: statement print',
        HL,
        'PASS: 1/3',
        'FAIL: 1/3',
        'ERROR: 1/3',
        '',
      ].join('\n'),
    );
  }, 180_000);
});

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
