// Strict mode (compile option `strict`, compiler/strict/): each OPA strict check with
// its exact code, message and row, the stage order (a stage with errors stops
// compilation), and policies that must stay clean.
import { describe, expect, it } from 'vitest';
import { compile, RegoErrors, strictChecks, parseModule } from '../../../compiler/index.js';
import { PASSES } from '../../../compiler/passes/index.js';
import { STRICT_BEFORE_PASS } from '../../../compiler/strict/index.js';

/** `row: code: message` for each error of a strict compile ([] when it compiles). */
function strict(text: string, v0Compatible = false, files: Record<string, string> = {}): string[] {
  try {
    const extra = Object.entries(files).map(([file, t]) => ({ file, text: t }));
    compile([{ file: 'p.rego', text }, ...extra], { strict: true, v0Compatible });
    return [];
  } catch (e) {
    if (!(e instanceof RegoErrors)) throw e;
    return e.errors.map((x) => `${x.location?.row}: ${x.code}: ${x.message}`);
  }
}

describe('strict: imports', () => {
  it('reports unused imports with OPA’s import text', () => {
    const src = 'package p\nimport data.foo\nimport input.bar as baz\nimport data.x["a-b"]\nimport future.keywords.in\nimport rego.v1\np := 1\n';
    expect(strict(src, true)).toEqual([
      '2: rego_compile_error: import data.foo unused',
      '3: rego_compile_error: import input.bar as baz unused',
      '4: rego_compile_error: import data.x["a-b"] unused',
    ]);
  });

  it('counts uses in rule heads, bodies, aliases, calls, with and comprehensions', () => {
    const src = [
      'package p',
      'import data.lib.v',
      'import data.lib as l',
      'import data.lib.f',
      'import input.user',
      'import data.lib.w',
      'import data.lib.k',
      'p := v',
      'q if l.x',
      'r if f(1)',
      's if q with input as user',
      't := [x | some x in w]',
      'u[k] := 1',
    ].join('\n');
    expect(strict(src, false, { 'lib.rego': 'package lib\nv := 1\nx := 1\nf(a) := a\nw := [1]\nk := "a"\n' })).toEqual([]);
  });

  it('treats an import hidden by a local of the same name as unused', () => {
    expect(strict('package p\nimport data.foo\np if {\n\tfoo := 1\n\tfoo > 0\n}\n')).toEqual(['2: rego_compile_error: import data.foo unused']);
  });

  it('reports duplicate imports after unused ones are fixed', () => {
    const src = 'package p\nimport data.a\nimport data.b.a\np if a\n';
    expect(strict(src)).toEqual(['3: rego_compile_error: import must not shadow import data.a']);
  });

  it('runs before the other stages: only unused imports are reported', () => {
    expect(strict('package p\nimport data.foo\np if {\n\tx := 1\n}\n')).toEqual(['2: rego_compile_error: import data.foo unused']);
  });
});

describe('strict: shadowing input and data', () => {
  it('reports rules, args and assignments', () => {
    const src = 'package p\ninput { true }\np { input := 1 }\nq = y { y := [1 | data := 2; data] }\n';
    expect(strict(src, true)).toEqual([
      '2: rego_compile_error: rules must not shadow input (use a different rule name)',
      '3: rego_compile_error: variables must not shadow input (use a different variable name)',
      '4: rego_compile_error: variables must not shadow data (use a different variable name)',
    ]);
  });

  it('reports args named input at the rule (OPA’s resolve stage)', () => {
    expect(strict('package p\nf(input) = 1 { true }\n', true)).toEqual(['2: rego_compile_error: args must not shadow input (use a different variable name)']);
  });
});

describe('strict: unused local variables and arguments', () => {
  it('reports assigned vars never read, in bodies, comprehensions and every', () => {
    const src = [
      'package p',
      'p if {',
      '\tx := 1',
      '}',
      'q := [y | y := 1; z := 2]',
      'r if {',
      '\tevery v in [1] {',
      '\t\tw := v',
      '\t}',
      '}',
    ].join('\n');
    expect(strict(src)).toEqual([
      '3: rego_compile_error: assigned var x unused',
      '5: rego_compile_error: assigned var z unused',
      '8: rego_compile_error: assigned var w unused',
    ]);
  });

  it('reports unused function arguments at the head, across else branches', () => {
    const src = 'package p\nf(x, y) := 1 if x > 0\ng(a) := 1 if a > 0\nelse := 2\nh(_, b) := true\n';
    expect(strict(src)).toEqual([
      '2: rego_compile_error: unused argument y. (hint: use _ (wildcard variable) instead)',
      '5: rego_compile_error: unused argument b. (hint: use _ (wildcard variable) instead)',
    ]);
  });

  it('reports unused some and every declarations', () => {
    const src = 'package p\np if {\n\tsome k\n\ttrue\n}\nq if {\n\tevery v in [1] {\n\t\ttrue\n\t}\n}\n';
    expect(strict(src)).toEqual(['3: rego_compile_error: declared var k unused', '8: rego_compile_error: declared var v unused']);
  });

  it('reports an inner scope only: an error there skips the outer checks, as in OPA', () => {
    expect(strict('package p\np if {\n\tx := 1\n\tys := [y | y := 1; z := 1]\n\tcount(ys) > 0\n}\n')).toEqual(['4: rego_compile_error: assigned var z unused']);
  });

  it('reports the declaration errors of the same stage', () => {
    expect(strict('package p\np if {\n\tx = 1\n\tx := 2\n\tx > 0\n}\n')).toEqual(['4: rego_compile_error: var x referenced above']);
    expect(strict('package p\nf(x) := y if {\n\tx := 1\n\ty := x\n}\n')).toEqual(['3: rego_compile_error: arg x redeclared']);
  });

  it('does not report vars that are read', () => {
    const src = [
      'package p',
      'f(x) := x',
      'g(x) := [y | some y in x]',
      'h(_) := 1',
      'k(x, y) := z if z := x + y',
      'p if {',
      '\tx := 1',
      '\tys := [y | some y in [x]]',
      '\tcount(ys) > 0',
      '}',
      'q if {',
      '\tx := {"a": 1}',
      '\tdata.p.r with input as x',
      '}',
      'r if input.a == 1',
      's if {',
      '\txs := [1, 2]',
      '\tevery v in xs { v > 0 }',
      '}',
      'm contains v if {',
      '\tsome v in [1]',
      '}',
      'n if {',
      '\tsome k, v in {"a": 1}',
      '\tk == "a"',
      '}',
      'o[k] := v if {',
      '\tk := "a"',
      '\tv := 1',
      '}',
      't if {',
      '\t_ := 1',
      '\t[_, b] := [1, 2]',
      '\tb > 0',
      '}',
      'u := {k: v | some k, v in {"a": 1}}',
      'w if {',
      '\tsome i',
      '\tinput.xs[i] > 0',
      '}',
    ].join('\n');
    expect(strict(src)).toEqual([]);
  });

  it('does not report vars read in nested every, else branches, ref heads, templates or print (v0 and v1)', () => {
    const v1 = [
      'package p',
      'a.b[x] := 1 if x := "k"',
      'p if {',
      '\tlimit := 2',
      '\tevery v in [1] {',
      '\t\tys := [y | y := v; y < limit]',
      '\t\tcount(ys) > 0',
      '\t}',
      '}',
      'q := y if {',
      '\tx := 1',
      '\ty := $"{x}"',
      '}',
      'r if {',
      '\tsome i',
      '\tys := [1 | input.xs[i] > 0]',
      '\tprint(ys)',
      '}',
      'f(x) := y if {',
      '\ty := x',
      '} else := z if {',
      '\tz := 2',
      '}',
    ].join('\n');
    expect(strict(v1)).toEqual([]);
    const v0 = 'package p\ns[x] { x := input.a }\nt[k] = v { k := "a"; v := 1 }\ng(a) { a > 1 } { a < 0 }\n';
    expect(strict(v0, true)).toEqual([]);
  });

  it('reports an unused argument in each v0 body of its own', () => {
    expect(strict('package p\ng(a, b) {\n\ta > b\n} {\n\ta < 0\n}\n', true)).toEqual(['4: rego_compile_error: unused argument b. (hint: use _ (wildcard variable) instead)']);
  });
});

describe('strict: deprecated builtins', () => {
  it('reports calls of deprecated builtins as type errors (v0 only: v1 has no such builtins)', () => {
    const src = 'package p\nq { any([true]) }\nr { x := all([true]); x }\ns { not re_match("a", "b") }\n';
    expect(strict(src, true)).toEqual([
      '2: rego_type_error: deprecated built-in function calls in expression: any',
      '3: rego_type_error: deprecated built-in function calls in expression: all',
      '4: rego_type_error: deprecated built-in function calls in expression: re_match',
    ]);
  });

  it('does not report a package’s own function of the same name', () => {
    expect(strict('package p\nany(x) = true { x }\nq { any(true) }\n', true)).toEqual([]);
  });

  it('runs after the earlier stages', () => {
    expect(strict('package p\nq { x := any([true]) }\n', true)).toEqual(['2: rego_compile_error: assigned var x unused']);
  });
});

describe('strict: wiring', () => {
  it('is off unless asked for', () => {
    expect(() => compile([{ file: 'p.rego', text: 'package p\nimport data.foo\np if { x := 1 }\n' }])).not.toThrow();
  });

  it('hooks in before passes that exist', () => {
    const names = PASSES.map((p) => p.name);
    expect(names).toContain(STRICT_BEFORE_PASS.source);
    expect(names).toContain(STRICT_BEFORE_PASS.deprecated);
  });

  it('strictChecks works on parsed modules', () => {
    const m = parseModule('package p\nimport data.foo\np := 1\n', 'm.rego');
    expect(strictChecks([m]).map((e) => `${e.location?.file}:${e.location?.row}: ${e.message}`)).toEqual(['m.rego:2: import data.foo unused']);
  });
});
