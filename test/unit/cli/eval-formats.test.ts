// `regent eval` against opa eval's cmd/eval.go and internal/presentation: the values,
// bindings, discard and source formats (exact text), errors on stderr for the non-JSON
// formats, exit codes (2 for errors as RunE's newExitErrorWrap(2, err); 1 for a bad
// command line, which main turns into os.Exit(1), and for --fail/--fail-defined),
// --stdin and OPA's argument checks (validateEvalParams, with its messages); then the
// flags: --count (aggregated_metrics/aggregated_profile with OPA's metrics.Statistics),
// --profile-sort (OPA's criteria, each descending) and what implies --profile/--metrics,
// --ignore, -S/--strict, -O/-e (evaluation against the optimized bundle),
// --show-builtin-errors (the errors non-strict evaluation treats as undefined, and its
// conflict with --strict-builtin-errors in OPA's words), the flags accepted without
// changing results, and the help.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { evalCommand } from '../../../cli/eval.js';
import { aggregateProfiles, goFloat, sortProfile, statistics, type ExprStats } from '../../../cli/eval-instrument.js';
import { capture, tempTree } from './helpers.js';

let dir: string;
let cleanup: () => void;
/** The tree of the flag tests (policies, a bundle, broken files to --ignore). */
let fdir: string;
let fcleanup: () => void;

beforeAll(() => {
  ({ dir, cleanup } = tempTree({
    'p.rego': 'package t\n\np if input.x == 1\n\nnames contains n if some n in ["a", "b"]\n',
    'bad.rego': 'package bad\n\nq := \n',
  }));
  ({ dir: fdir, cleanup: fcleanup } = tempTree({
    'pol/authz.rego': 'package authz\n\n# METADATA\n# entrypoint: true\nallow if {\n\tsome r in input.roles\n\tr == "admin"\n}\n\nname := input.user\n',
    'pol/data.json': '{"limit": 3}',
    'pol/tmp/broken.rego': 'package broken\n\nx := \n',
    'pol/skip.d/also-broken.rego': 'package broken2\n\ny := \n',
    'plain/p.rego': 'package plain\n\nallow if input.roles[_] == "admin"\n',
    'strict/s.rego': 'package s\n\nimport data.unused\n\np := 1\n',
    'in.json': '{"roles": ["admin"], "user": "ann"}',
    'bun/.manifest': '{"roots": ["x", "junk"]}',
    'bun/x/x.rego': 'package x\n\nv := 1\n',
    'bun/x/data.json': '{"a": 2}',
    'bun/junk/j.rego': 'package junk\n\nv := \n',
  }));
});
afterAll(() => {
  cleanup();
  fcleanup();
});

async function run(argv: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const c = capture(stdin);
  const code = await evalCommand(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('--format values and bindings', () => {
  it('values: one indented JSON array of expression values per result row', async () => {
    const r = await run(['-f', 'values', 'x := [1, 2][_]; y := "s"']);
    expect(r.out).toBe('[\n  true,\n  true\n]\n[\n  true,\n  true\n]\n');
    expect((await run(['-f', 'values', '[1, {"k": "v"}]'])).out).toBe('[\n  [\n    1,\n    {\n      "k": "v"\n    }\n  ]\n]\n');
    expect((await run(['-f', 'values', 'false'])).out).toBe('[\n  false\n]\n');
    const undef = await run(['-f', 'values', 'input.nope']);
    expect(undef).toEqual({ code: 0, out: '', err: '' });
  });

  it('bindings: one indented JSON object per row, names sorted, {} without bindings', async () => {
    const r = await run(['-f', 'bindings', 'z := 1; a := ["x", "y"][_]']);
    expect(r.out).toBe('{\n  "a": "x",\n  "z": 1\n}\n{\n  "a": "y",\n  "z": 1\n}\n');
    expect((await run(['-f', 'bindings', 'true'])).out).toBe('{}\n');
  });

  it('prints errors on stderr, nothing on stdout, exit code 2', async () => {
    for (const f of ['values', 'bindings', 'raw', 'pretty']) {
      const r = await run(['-f', f, 'x := ']);
      expect(r.code, f).toBe(2);
      expect(r.out, f).toBe('');
      expect(r.err, f).toBe('1 error occurred: 1:6: rego_parse_error: unexpected eof token\n\tx := \n\t   ^\n');
    }
  });
});

describe('--format discard', () => {
  it('replaces a defined result with "discarded"; undefined prints {}', async () => {
    const r = await run(['-f', 'discard', 'x := [1, 2][_]']);
    expect(r).toEqual({ code: 0, out: '{\n  "result": "discarded"\n}\n', err: '' });
    expect((await run(['-f', 'discard', 'input.nope'])).out).toBe('{}\n');
  });

  it('still prints the errors, keys sorted as Go re-encodes a map, exit code 2', async () => {
    const r = await run(['-f', 'discard', '--strict-builtin-errors', 'x := 1 / 0']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('');
    expect(r.out).toBe(
      '{\n  "errors": [\n    {\n      "code": "eval_builtin_error",\n      "location": {\n        "col": 6,\n        "file": "",\n        "row": 1\n      },\n' +
        '      "message": "div: divide by zero"\n    }\n  ]\n}\n',
    );
  });

  it('keeps the other members (metrics), sorted', async () => {
    const o = JSON.parse((await run(['-f', 'discard', '--metrics', 'true'])).out);
    expect(Object.keys(o)).toEqual(['metrics', 'result']);
    expect(o.result).toBe('discarded');
  });
});

describe('--format source (partial evaluation only)', () => {
  it('prints each query, a blank line after it, then each support module', async () => {
    const inlined = await run(['-d', join(dir, 'p.rego'), '-p', '-f', 'source', 'data.t.p == true']);
    expect(inlined).toEqual({ code: 0, out: '# Query 1\ninput.x = 1\n\n', err: '' });
    const kept = await run(['-d', join(dir, 'p.rego'), '-p', '--disable-inlining', 'data.t.p', '-f', 'source', 'data.t.p == true']);
    expect(kept.out).toBe('# Query 1\ndata.partial.t.p == true\n\n# Module 1\npackage partial.t\n\np if {\n\tinput.x = 1\n}\n');
    // --shallow-inlining: no rule that depends on unknowns is inlined
    expect((await run(['-d', join(dir, 'p.rego'), '-p', '--shallow-inlining', '-f', 'source', 'data.t.p == true'])).out).toBe(kept.out);
  });

  it('is refused without --partial; --partial takes only json, pretty and source', async () => {
    const r = await run(['-f', 'source', 'true']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^Error: invalid output format for evaluation\n/);
    for (const f of ['values', 'bindings', 'raw', 'discard']) {
      const p = await run(['-p', '-f', f, 'input.x == 1']);
      expect(p.code, f).toBe(1);
      expect(p.err, f).toMatch(/^Error: invalid output format for partial evaluation\n/);
    }
  });

  it('pretty prints undefined when no query can be true; errors go to stderr', async () => {
    expect((await run(['-p', '-f', 'pretty', '1 > 2'])).out).toBe('undefined\n');
    const e = await run(['-d', join(dir, 'bad.rego'), '-p', '-f', 'source', 'data.bad.q']);
    expect(e.code).toBe(2);
    expect(e.out).toBe('');
    expect(e.err).toMatch(/^1 error occurred: .*bad\.rego:4: rego_parse_error: /);
  });

  it('never counts as defined, as opa eval (no result rows): --fail exits 1, --fail-defined 0', async () => {
    expect((await run(['-p', '--fail', 'input.x == 1'])).code).toBe(1);
    expect((await run(['-p', '--fail-defined', 'input.x == 1'])).code).toBe(0);
  });
});

describe('exit codes', () => {
  it('errors exit 2 even with --fail or --fail-defined; --fail/--fail-defined exit 1', async () => {
    expect((await run(['--fail', 'x := '])).code).toBe(2);
    expect((await run(['--fail-defined', 'x := '])).code).toBe(2);
    expect((await run(['-d', join(dir, 'bad.rego'), 'true'])).code).toBe(2);
    expect((await run(['--fail', 'input.nope'])).code).toBe(1);
    expect((await run(['--fail-defined', 'true'])).code).toBe(1);
    expect((await run(['--fail', 'true'])).code).toBe(0);
  });

  it('a bad command line prints Error: and the usage, exit 1', async () => {
    const r = await run(['--no-such-flag', 'true']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^Error: unknown flag: --no-such-flag\n\nUsage: regent eval/);
    expect(r.out).toBe('');
  });
});

describe('--stdin and argument checks', () => {
  it('reads the query from stdin', async () => {
    const r = await run(['--stdin', '-f', 'raw'], 'x := 40 + 2\nx\n');
    expect(r).toEqual({ code: 0, out: 'true 42\n', err: '' });
  });

  it('words each conflict as opa eval does (exit 1)', async () => {
    const cases: [string[], string][] = [
      [['--stdin', 'true'], 'specify query argument or --stdin but not both'],
      [[], 'specify query argument or --stdin'],
      [['a', 'b'], 'specify at most one query argument'],
      [['--stdin', '--stdin-input'], 'specify --stdin or --stdin-input but not both'],
      [['-I', '-i', 'in.json', 'input'], 'specify --stdin-input or --input but not both'],
      [['--fail', '--fail-defined', 'true'], 'specify --fail or --fail-defined but not both'],
      [['-p', '-u', '1', 'true'], 'illegal argument with --unknowns, specify string with one or more --unknowns'],
      [['-O', '1', '-d', 'a', '-b', 'b', 'true'], 'specify either --data or --bundle flag with optimization level greater than 0'],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err.split('\n')[0], argv.join(' ')).toBe(`Error: ${message}`);
    }
  });

  it('reads --stdin-input once, however many runs --count makes', async () => {
    const r = await run(['-I', '--count', '3', '-f', 'raw', 'input.n'], '{"n": 7}');
    expect(r.out).toBe('7\n');
  });
});

// ---------------------------------------------------------------- flags

const runArgs = (...argv: string[]): Promise<{ code: number; out: string; err: string }> => run(argv);

const STAT_KEYS = ['75%', '90%', '95%', '99%', '99.9%', '99.99%', 'count', 'max', 'mean', 'median', 'min', 'stddev'];

describe('--count', () => {
  it('statistics as go-metrics computes them (percentiles at p·(n+1), population stddev)', () => {
    const s = statistics([30, 10, 20, 40]);
    expect(Object.keys(s)).toEqual(STAT_KEYS);
    expect(s).toMatchObject({ count: 4, min: 10, max: 40, mean: 25, median: 25, '75%': 37.5, '90%': 40, '99.99%': 40 });
    expect(s.stddev).toBeCloseTo(Math.sqrt(125), 10);
    expect(statistics([5])).toMatchObject({ count: 1, min: 5, max: 5, mean: 5, median: 5, stddev: 0 });
  });

  it('replaces metrics with aggregated_metrics over the runs (json)', async () => {
    const r = await runArgs('-d', join(fdir, 'plain'), '-i', join(fdir, 'in.json'), '--count', '3', '--metrics', 'data.plain.allow');
    expect(r.code).toBe(0);
    const o = JSON.parse(r.out);
    expect(Object.keys(o)).toEqual(['aggregated_metrics', 'result']);
    expect(o.result[0].expressions[0].value).toBe(true);
    expect(Object.keys(o.aggregated_metrics)).toContain('timer_rego_query_eval_ns');
    for (const stats of Object.values(o.aggregated_metrics) as Record<string, number>[]) {
      expect(Object.keys(stats)).toEqual(STAT_KEYS);
      expect(stats.count).toBe(3);
    }
  });

  it('aggregates the profile entry by entry; pretty prints both tables', async () => {
    const o = JSON.parse((await runArgs('-d', join(fdir, 'plain'), '-i', join(fdir, 'in.json'), '--count', '2', '--profile', 'data.plain.allow')).out);
    expect(Object.keys(o)).toEqual(['aggregated_metrics', 'result', 'aggregated_profile']);
    expect(Object.keys(o.aggregated_profile[0])).toEqual(['total_time_ns_stats', 'num_eval', 'num_redo', 'num_gen_expr', 'location']);
    expect(o.aggregated_profile[0].total_time_ns_stats.count).toBe(2);
    const p = await runArgs('-d', join(fdir, 'plain'), '-i', join(fdir, 'in.json'), '--count', '2', '--profile', '-f', 'pretty', 'data.plain.allow');
    expect(p.out.startsWith('true\n')).toBe(true);
    expect(p.out).toMatch(/\| +METRIC +\| +MIN +\| +MAX +\| +MEAN +\| +90% +\| +99% +\|/);
    expect(p.out).toMatch(/\| +MIN +\| +MAX +\| +MEAN +\| +90% +\| +99% +\| NUM EVAL \| NUM REDO \| NUM GEN EXPR \| +LOCATION +\|/);
    expect(p.out).not.toMatch(/\| +TIME +\|/);
  });

  it('zips profiles by position, keeping the first run\'s counts', () => {
    const at = (row: number, t: number, n: number): ExprStats => ({ total_time_ns: t, num_eval: n, num_redo: 0, num_gen_expr: 1, location: { file: 'f', row, col: 1 } });
    const agg = aggregateProfiles([[at(3, 100, 1), at(4, 10, 2)], [at(3, 300, 9), at(4, 30, 9)]]);
    expect(agg.map((a) => [a.location.row, a.num_eval, a.total_time_ns_stats.mean])).toEqual([
      [3, 1, 200],
      [4, 2, 20],
    ]);
  });

  it('prints the first run\'s result once and evaluates every run (print() output each time)', async () => {
    const r = await runArgs('--count', '3', '-f', 'raw', 'print("run"); x := 1');
    expect(r.out).toBe('true true\n');
    expect(r.err).toBe('run\nrun\nrun\n');
    expect((await runArgs('--count', '0', 'true')).code).toBe(1);
  });

  it('formats stats as Go\'s %v of a float64', () => {
    expect([goFloat(783845.5), goFloat(1443123), goFloat(1e6), goFloat(12.25), goFloat(0.00001)]).toEqual(['783845.5', '1.443123e+06', '1e+06', '12.25', '1e-05']);
  });
});

describe('--profile-sort, --profile-limit', () => {
  const s = (file: string, row: number, t: number, evals: number, gen = 1): ExprStats => ({ total_time_ns: t, num_eval: evals, num_redo: 0, num_gen_expr: gen, location: { file, row, col: 1 } });

  it('sorts by the given criteria first, then the default ones, each descending', () => {
    const stats = [s('a', 1, 5, 1), s('b', 9, 5, 3), s('a', 4, 7, 1, 4)];
    expect(sortProfile([...stats]).map((x) => x.location.row)).toEqual([4, 9, 1]);
    expect(sortProfile([...stats], ['line']).map((x) => x.location.row)).toEqual([9, 4, 1]);
    expect(sortProfile([...stats], ['file', 'num_eval']).map((x) => `${x.location.file}${x.location.row}`)).toEqual(['b9', 'a4', 'a1']);
    expect(sortProfile([...stats], ['num_gen_expr']).map((x) => x.location.row)).toEqual([4, 9, 1]);
    expect(sortProfile([...stats], ['bogus']).map((x) => x.location.row)).toEqual([4, 9, 1]);
  });

  it('--profile-sort and --profile-limit turn profiling on, and profiling turns metrics on', async () => {
    const sorted = JSON.parse((await runArgs('-d', join(fdir, 'pol', 'authz.rego'), '-i', join(fdir, 'in.json'), '--profile-sort', 'line', 'data.authz.allow')).out);
    expect(Object.keys(sorted)).toEqual(['metrics', 'result', 'profile']);
    const rows = sorted.profile.filter((p: { location: { file: string } }) => p.location.file !== '').map((p: { location: { row: number } }) => p.location.row);
    expect(rows).toEqual([...rows].sort((a: number, b: number) => b - a));
    const limited = JSON.parse((await runArgs('-i', join(fdir, 'in.json'), '--profile-limit', '1', 'input.roles[_] == "admin"')).out);
    expect(limited.profile).toHaveLength(1);
    expect(limited.metrics).toBeDefined();
  });
});

describe('--ignore', () => {
  it('skips files and directories below a -d path whose name matches (repeatable, comma lists)', async () => {
    const all = await runArgs('-d', join(fdir, 'pol'), '-f', 'raw', 'data.limit');
    expect(all.code).toBe(2);
    const r = await runArgs('-d', join(fdir, 'pol'), '--ignore', 'tmp', '--ignore', '*.d', '-f', 'raw', 'data.limit');
    expect(r).toEqual({ code: 0, out: '3\n', err: '' });
    expect((await runArgs('-d', join(fdir, 'pol'), '--ignore', 'broken.rego,also-*', '-f', 'raw', 'data.limit')).out).toBe('3\n');
  });

  it('applies to bundle directories too', async () => {
    expect((await runArgs('-b', join(fdir, 'bun'), '-f', 'raw', 'data.x')).code).toBe(2);
    expect(await runArgs('-b', join(fdir, 'bun'), '--ignore', 'junk', '-f', 'raw', 'data.x')).toEqual({ code: 0, out: '{"a":2,"v":1}\n', err: '' });
  });
});

describe('-S/--strict', () => {
  it('compiles in strict mode: an unused import is an error (exit 2)', async () => {
    const r = await runArgs('-d', join(fdir, 'strict'), '-S', '-f', 'pretty', 'data.s.p');
    expect(r.code).toBe(2);
    expect(r.err).toBe(`1 error occurred: ${join(fdir, 'strict', 's.rego')}:3: rego_compile_error: import data.unused unused\n`);
    expect((await runArgs('-d', join(fdir, 'strict'), '-f', 'raw', 'data.s.p')).out).toBe('1\n');
  });
});

describe('-O and -e', () => {
  it('evaluates against the optimized bundle, with the same results', async () => {
    const args = ['-d', join(fdir, 'pol'), '--ignore', 'tmp,skip.d', '-i', join(fdir, 'in.json'), '-f', 'raw'];
    expect((await runArgs(...args, '-O', '1', '-e', 'authz/allow', 'data.authz.allow')).out).toBe('true\n');
    expect((await runArgs(...args, '-O', '2', '-e', 'authz/name', 'data.authz.name; data.limit')).out).toBe('ann 3\n');
    // the METADATA entrypoint annotation counts as an entrypoint
    expect((await runArgs(...args, '-O', '2', 'data.authz.allow')).out).toBe('true\n');
  });

  it('reports a bundle that cannot be optimized plainly on stderr, exit 2', async () => {
    const r = await runArgs('-d', join(fdir, 'plain'), '-O', '1', 'data.plain.allow');
    expect(r).toEqual({ code: 2, out: '', err: 'bundle optimizations require at least one entrypoint\n' });
  });
});

describe('--show-builtin-errors', () => {
  it('conflicts with --strict-builtin-errors (OPA\'s message, exit 2)', async () => {
    const r = await runArgs('--show-builtin-errors', '--strict-builtin-errors', 'true');
    expect(r).toEqual({
      code: 2,
      out: '',
      err: 'cannot use --show-builtin-errors with --strict-builtin-errors, --strict-builtin-errors will return the first built-in error encountered immediately\n',
    });
  });

  // A builtin error outside strict mode leaves its expression undefined; the flag reports it.
  const query = 'x := [y | y := to_number(["1", "a"][_])]';
  const error = { message: 'to_number: strconv.ParseFloat: parsing "a": invalid syntax', code: 'eval_builtin_error', location: { file: '', row: 1, col: 16 } };

  it('json: the collected errors, then the result; exit 0 (builtin errors alone are no failure)', async () => {
    const r = await runArgs('--show-builtin-errors', query);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['errors', 'result']);
    expect(doc.errors).toEqual([error]);
    expect((doc.result as { bindings: unknown }[])[0]!.bindings).toEqual({ x: [1] });
    const plain = JSON.parse((await runArgs(query)).out) as Record<string, unknown>;
    expect(Object.keys(plain)).toEqual(['result']);
  });

  it('pretty and values print the errors on stderr instead of the result, as OPA', async () => {
    for (const f of ['pretty', 'values']) {
      const r = await runArgs('--show-builtin-errors', '-f', f, query);
      expect(r).toEqual({ code: 0, out: '', err: `1 error occurred: 1:16: eval_builtin_error: ${error.message}\n` });
    }
  });

  it('collects every failed call, inside rules too, with its location', async () => {
    const t = tempTree({ 'b.rego': 'package b\n\nvals contains v if {\n\tsome s in ["1", "x", "y"]\n\tv := to_number(s)\n}\n' });
    try {
      const r = await runArgs('--show-builtin-errors', '-d', t.dir, 'data.b.vals');
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.out) as { errors: { message: string; location: { row: number } }[]; result: { expressions: { value: unknown }[] }[] };
      expect(doc.errors.map((e) => [e.message, e.location.row])).toEqual([
        ['to_number: strconv.ParseFloat: parsing "x": invalid syntax', 5],
        ['to_number: strconv.ParseFloat: parsing "y": invalid syntax', 5],
      ]);
      expect(doc.result[0]!.expressions[0]!.value).toEqual([1]);
    } finally {
      t.cleanup();
    }
  });
});

describe('flags that change nothing, and flags refused where they would', () => {
  it('accepts the optimization-tuning flags with the same output', async () => {
    const base = ['-d', join(fdir, 'plain'), '-i', join(fdir, 'in.json'), 'data.plain.allow'];
    const plain = await runArgs(...base);
    for (const extra of [['--disable-indexing'], ['--disable-early-exit'], ['--v1-compatible'], ['--optimize-store-for-read-speed'], ['--pretty-limit', '5'], ['--explain', 'off'], ['--nondeterminstic-builtins'], ['--shallow-inlining'], ['-e', 'plain/allow'], ['--var-values']]) {
      const r = await runArgs(...extra, ...base);
      expect(r, extra.join(' ')).toEqual(plain);
    }
  });

  it('adds the expression variables column to a pretty trace with --var-values', async () => {
    const v = await runArgs('--explain', 'full', '--var-values', '-f', 'pretty', 'x := 1; y := x + 1');
    expect(v.code).toBe(0);
    const lines = v.out.split('\n');
    // OPA's PrettyTraceWithOpts{Locations, ExprVariables}: the bound variables the event's node names.
    expect(lines[1]).toBe('query:1     | Eval x := 1                 {}');
    expect(lines[2]).toBe('query:1     | Eval y := x + 1             {x: 1}');
    expect(lines[3]).toBe('query:1     | Exit x := 1; y := x + 1     {x: 1, y: 2}');
  });

  it('rejects a malformed int flag as a usage error', async () => {
    const r = await runArgs('--count', 'lots', 'true');
    expect(r.code).toBe(1);
    expect(r.err.split('\n')[0]).toBe('Error: invalid argument "lots" for "--count" flag: strconv.ParseInt: parsing "lots": invalid syntax');
  });
});

describe('help', () => {
  it('lists every opa eval flag', async () => {
    const c = capture();
    expect(await evalCommand(['--help'], c.io)).toBe(0);
    const names = 'bundle capabilities count coverage data disable-early-exit disable-indexing disable-inlining entrypoint explain fail fail-defined format help ignore import input instrument metrics nondeterminstic-builtins optimize optimize-store-for-read-speed package partial pretty-limit profile profile-limit profile-sort schema shallow-inlining show-builtin-errors stdin stdin-input strict strict-builtin-errors target timeout unknowns v0-compatible v1-compatible var-values';
    for (const n of names.split(' ')) expect(c.out, n).toMatch(new RegExp(`^ +(-\\w, )?--${n}\\b`, 'm'));
    for (const f of ['json', 'values', 'bindings', 'pretty', 'source', 'raw', 'discard']) expect(c.out).toContain(`--format=${f}`);
  });
});
