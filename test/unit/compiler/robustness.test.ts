// Hostile and malformed input: every failure is a typed error with a location,
// limits hold, and nothing crashes the process.
import { describe, expect, it } from 'vitest';
import { compile, EvalError, RegoErrors } from '../../../compiler/index.js';
import { fromJS, RObject } from '../../../runtime/value/index.js';

function compileError(text: string): RegoErrors {
  try {
    compile([{ file: 'bad.rego', text }]);
  } catch (e) {
    if (e instanceof RegoErrors) return e;
    throw new Error(`untyped error: ${String(e)}`);
  }
  throw new Error('expected a compile error');
}

describe('malformed policies', () => {
  const samples = [
    'package',
    'package a\np := ',
    'package a\np if {',
    'package a\np := [1, 2',
    'package a\np := {"a": }',
    'package a\np := "unterminated',
    'package a\np if { x := 1; x := 2 }',
    'package a\n}}}}',
    'package a\np := $"{"',
    'package a\nimport data.x as\n',
    '\u0000\u0001\u0002',
  ];
  for (const text of samples) {
    it(`reports a located error for ${JSON.stringify(text.slice(0, 30))}`, () => {
      const e = compileError(text);
      expect(e.errors.length).toBeGreaterThan(0);
      for (const err of e.errors) {
        expect(err.code).toMatch(/^rego_/);
        expect(err.location?.file).toBe('bad.rego');
        expect(err.location?.row).toBeGreaterThanOrEqual(1);
      }
    });
  }

  it('bounds nesting depth with a parse error, not a stack overflow', () => {
    const deep = 'package a\np := ' + '['.repeat(100_000) + ']'.repeat(100_000);
    const e = compileError(deep);
    expect(e.errors[0]!.code).toBe('rego_parse_error');
  });

  it('bounds deeply nested expressions and bodies', () => {
    const deep = 'package a\np := ' + '('.repeat(50_000) + '1' + ')'.repeat(50_000);
    expect(compileError(deep).errors[0]!.code).toBe('rego_parse_error');
  });

  it('rejects inputs over the size limit', () => {
    const huge = 'package a\np := "' + 'x'.repeat(9 * 1024 * 1024) + '"';
    expect(compileError(huge).errors[0]!.code).toBe('rego_parse_error');
  });

  it('compiles a very long but valid policy', () => {
    const rules = Array.from({ length: 5000 }, (_, i) => `r${i} := ${i}`).join('\n');
    const p = compile([{ file: 'long.rego', text: `package a\n${rules}` }]);
    expect(p.prepare('data.a.r4999').eval()[0]!.expressions[0]!.value).toBe(4999);
  });
});

describe('malformed queries', () => {
  const p = compile([{ file: 'a.rego', text: 'package a\np := 1' }]);
  for (const q of ['', 'x :=', 'data.a.p[', '1 +', 'not', 'x > 1']) {
    it(`reports a typed error for query ${JSON.stringify(q)}`, () => {
      expect(() => p.prepare(q)).toThrow(RegoErrors);
    });
  }
});

describe('evaluation limits', () => {
  it('stops at the deadline with eval_cancel_error', () => {
    const p = compile([{ file: 'a.rego', text: 'package a\np := count([x | some i in numbers.range(1, 2000); some j in numbers.range(1, 2000); x := i * j])' }]);
    const q = p.prepare('data.a.p');
    try {
      q.eval({ deadline: Date.now() + 50 });
      throw new Error('expected a deadline error');
    } catch (e) {
      expect(e).toBeInstanceOf(EvalError);
      expect((e as EvalError).code).toBe('eval_cancel_error');
    }
  });

  it('evaluates over deeply nested input without crashing', () => {
    let v: unknown = 1;
    for (let i = 0; i < 2000; i++) v = { a: v };
    const p = compile([{ file: 'a.rego', text: 'package a\nn := count([p | walk(input, [p, _])])' }]);
    const rows = p.prepare('data.a.n').eval({ input: fromJS(v) });
    expect(rows[0]!.expressions[0]!.value).toBe(2001);
  });

  it('reports conflicts as eval_conflict_error with a location', () => {
    const p = compile([{ file: 'c.rego', text: 'package a\np := 1\np := 2' }]);
    try {
      p.prepare('data.a.p').eval({ data: new RObject() });
      throw new Error('expected a conflict');
    } catch (e) {
      expect((e as EvalError).code).toBe('eval_conflict_error');
      expect((e as EvalError).location?.file).toBe('c.rego');
    }
  });
});
