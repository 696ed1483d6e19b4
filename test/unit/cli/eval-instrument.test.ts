// `regent eval --metrics/--instrument/--profile/--coverage/--package/--import/
// --capabilities`: output shapes as OPA's presentation package prints them (JSON
// members after `result`, pretty tables after the value), and Go duration strings.
// As opa eval (validateEvalParams): --profile implies --metrics; errors exit 2 (its
// RunE's newExitErrorWrap(2, err)) and print on stderr for pretty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { evalCommand } from '../../../cli/eval.js';
import { goDuration } from '../../../cli/eval-instrument.js';
import { capture, tempTree } from './helpers.js';

let dir: string;
let cleanup: () => void;
let policy: string;
let input: string;

beforeAll(() => {
  ({ dir, cleanup } = tempTree({
    'p.rego': ['package rbac', '', 'default allow := false', '', 'allow if {', '\tsome r in input.roles', '\tr == "admin"', '}', '', 'name := input.user.name', ''].join('\n'),
    'in.json': '{"roles": ["admin"], "user": {"name": "ann"}}',
    'caps.json': '{"builtins": [{"name": "assign"}, {"name": "eq"}, {"name": "equal"}]}',
  }));
  policy = join(dir, 'p.rego');
  input = join(dir, 'in.json');
});
afterAll(() => cleanup());

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = capture();
  const code = await evalCommand(args, c.io);
  return { code, out: c.out, err: c.err };
}

/** The timers of `opa eval --metrics`, sorted: loading, module and query compilation, and the evaluation's own. */
function opaTimers(evalTimer: string): string[] {
  const common = ['timer_rego_load_files_ns', 'timer_rego_module_compile_ns', 'timer_rego_module_parse_ns', 'timer_rego_query_compile_ns', 'timer_rego_query_parse_ns'];
  return [...common, evalTimer].sort();
}

describe('--metrics and --instrument', () => {
  it("puts OPA timer metrics (sorted) before result, in the field order of current OPA's Output", async () => {
    const r = await run('-d', policy, '-i', input, '--metrics', 'data.rbac.allow');
    expect(r.code).toBe(0);
    const o = JSON.parse(r.out);
    expect(Object.keys(o)).toEqual(['metrics', 'result']);
    expect(Object.keys(o.metrics)).toEqual(opaTimers('timer_rego_query_eval_ns'));
    for (const v of Object.values(o.metrics)) expect(Number.isInteger(v)).toBe(true);
  });
  it('--instrument implies --metrics and adds the stage timers; pretty prints a METRIC/VALUE table', async () => {
    const r = await run('-d', policy, '-i', input, '--instrument', '-f', 'pretty', 'data.rbac.allow');
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('true');
    expect(lines[1]).toMatch(/^\+-+\+-+\+$/);
    expect(lines[2]).toMatch(/^\| +METRIC +\| +VALUE +\|$/);
    expect(r.out).toContain('| timer_compile_stage_plan_ns ');
    expect(r.out).toContain('| timer_query_compile_stage_plan_ns ');
    expect(r.out).toMatch(/\| timer_rego_query_eval_ns +\| \d+ +\|/);
  });
});

describe('--partial with --metrics', () => {
  it('puts OPA timer metrics before partial (json), with the partial evaluation timer', async () => {
    const r = await run('-d', policy, '--partial', '--metrics', 'data.rbac.allow');
    expect(r.code).toBe(0);
    const o = JSON.parse(r.out);
    expect(Object.keys(o)).toEqual(['metrics', 'partial']);
    expect(Object.keys(o.metrics)).toEqual(opaTimers('timer_rego_partial_eval_ns'));
    expect(o.partial.queries.length).toBeGreaterThan(0);
    const plain = JSON.parse((await run('-d', policy, '--partial', 'data.rbac.allow')).out);
    expect(plain).toEqual({ partial: o.partial });
  });

  it('prints the metrics table after the residue (pretty), and metrics beside errors (json)', async () => {
    const r = await run('-d', policy, '--partial', '--instrument', '-f', 'pretty', 'input.x == 1');
    expect(r.out.split('\n')[1]).toBe('| Query 1 | input.x == 1 |');
    expect(r.out).toMatch(/\| timer_rego_partial_eval_ns +\| \d+ +\|/);
    expect(r.out).toContain('| timer_query_compile_stage_parse_ns ');
    const bad = await run('--partial', '--metrics', 'x :=');
    expect(bad.code).toBe(2);
    expect(Object.keys(JSON.parse(bad.out))).toEqual(['metrics', 'errors']);
  });

  it('with --count N > 1, aggregates the N runs\' timers as aggregated_metrics (json and pretty)', async () => {
    const r = await run('-d', policy, '--partial', '--metrics', '--count', '3', 'data.rbac.allow');
    expect(r.code).toBe(0);
    const o = JSON.parse(r.out);
    expect(Object.keys(o)).toEqual(['aggregated_metrics', 'partial']);
    expect(Object.keys(o.aggregated_metrics)).toEqual(opaTimers('timer_rego_partial_eval_ns'));
    const stats = o.aggregated_metrics.timer_rego_partial_eval_ns as Record<string, number>;
    expect(stats.min).toBeLessThanOrEqual(stats.max);
    expect(stats.min).toBeGreaterThan(0);
    const pretty = await run('-d', policy, '--partial', '--metrics', '--count', '2', '-f', 'pretty', 'input.x == 1');
    expect(pretty.out).toMatch(/\| timer_rego_partial_eval_ns +\| /);
    expect(pretty.out).not.toMatch(/\| Metric +\| Value +\|/);
  });
});

describe('--profile', () => {
  it('JSON: profile entries with OPA field names, sorted by time', async () => {
    const o = JSON.parse((await run('-d', policy, '-i', input, '--profile', 'data.rbac.allow')).out);
    expect(Object.keys(o)).toEqual(['metrics', 'result', 'profile']);
    const first = o.profile[0];
    expect(Object.keys(first)).toEqual(['total_time_ns', 'num_eval', 'num_redo', 'num_gen_expr', 'location']);
    expect(Object.keys(first.location)).toEqual(['file', 'row', 'col']);
    const times = o.profile.map((s: { total_time_ns: number }) => s.total_time_ns);
    expect(times).toEqual([...times].sort((a: number, b: number) => b - a));
    expect(o.profile.some((s: { location: { file: string; row: number } }) => s.location.file === policy && s.location.row === 7)).toBe(true);
  });
  it('pretty: TIME | NUM EVAL | NUM REDO | NUM GEN EXPR | LOCATION, query expressions by text', async () => {
    const r = await run('-d', policy, '-i', input, '--profile', '-f', 'pretty', 'data.rbac.allow');
    expect(r.out).toMatch(/\| +TIME +\| NUM EVAL \| NUM REDO \| NUM GEN EXPR \| +LOCATION +\|/);
    expect(r.out).toMatch(/\| [\d.]+(ns|µs|ms|s) +\| 1 +\| \d+ +\| 1 +\| data\.rbac\.allow +\|/);
    expect(r.out).toContain(`${policy}:7 `);
  });
  it('--profile-limit bounds the rows', async () => {
    const o = JSON.parse((await run('-d', policy, '-i', input, '--profile', '--profile-limit', '1', 'data.rbac.allow')).out);
    expect(o.profile).toHaveLength(1);
  });
});

describe('--coverage', () => {
  it('JSON: cover.Report; pretty: the Overall Coverage table', async () => {
    const o = JSON.parse((await run('-d', policy, '-i', input, '--coverage', 'data.rbac.allow')).out);
    expect(Object.keys(o.coverage)).toEqual(['files', 'covered_lines', 'not_covered_lines', 'coverage']);
    expect(o.coverage.files[policy].covered).toBeDefined();
    const r = await run('-d', policy, '-i', input, '--coverage', '-f', 'pretty', 'data.rbac.allow');
    expect(r.out).toMatch(/^true\n\+-{18}\+-+\+\n\| Overall Coverage \| \d+\.\d\d \|\n\+-{18}\+-+\+\n$/);
  });
});

describe('--package and --import', () => {
  it('resolves rule names in the package, keeping the query text', async () => {
    const o = JSON.parse((await run('-d', policy, '-i', input, '--package', 'rbac', 'allow; name')).out);
    expect(o.result[0].expressions.map((e: { value: unknown; text: string }) => [e.value, e.text])).toEqual([
      [true, 'allow'],
      ['ann', 'name'],
    ]);
  });
  it('resolves imports', async () => {
    const r = await run('-d', policy, '-i', input, '--import', 'data.rbac', '-f', 'raw', 'rbac.name');
    expect(r.out).toBe('ann\n');
  });
});

describe('--capabilities', () => {
  it('reports builtins the capabilities do not list as undefined functions', async () => {
    const r = await run('--capabilities', join(dir, 'caps.json'), '-f', 'pretty', 'x := count([1])');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe('1 error occurred: 1:6: rego_type_error: undefined function count\n');
  });
  it('accepts this build\'s version and refuses unknown ones', async () => {
    // opa reads --capabilities as it parses the flags: an unknown version is a usage error, exit 1
    const bad = await run('--capabilities', 'v0.0.0-none', 'true');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^Error: invalid argument "v0\.0\.0-none" for "--capabilities" flag: no such file or capabilities version found: v0\.0\.0-none\n/);
  });
});

describe('goDuration', () => {
  it('prints as Go time.Duration.String()', () => {
    expect(goDuration(0)).toBe('0s');
    expect(goDuration(999)).toBe('999ns');
    expect(goDuration(20_291)).toBe('20.291µs');
    expect(goDuration(1_500_000)).toBe('1.5ms');
    expect(goDuration(2_000_000_000)).toBe('2s');
    expect(goDuration(61_500_000_000)).toBe('1m1.5s');
  });
});
