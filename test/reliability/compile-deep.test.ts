// Issue 10 item 5, compiler side: deep expressions and long rule chains must not
// overflow the stack. Operator chains and long refs beyond MAX_EXPR_DEPTH are a
// located rego_parse_error; a 10,000-rule chain compiles (recursion and cycle
// checks are iterative) and evaluating it either succeeds or fails with a clean
// eval error. Exercised through the compile API, `parseQuery`, the interpreter and
// `regent check`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compile, EvalError, parseQuery, prepareInterpreted, RegoErrors } from '../../compiler/index.js';
import { MAX_EXPR_DEPTH } from '../../compiler/source/limits.js';
import { PASSES } from '../../compiler/passes/index.js';
import type { Pass } from '../../compiler/passes/pass.js';
import { makeChain } from '../../bench/fixtures/scaling/make-policy.js';

const ones = (n: number, op: string): string => Array.from({ length: n }, () => '1').join(op);

/** Deep shapes from the issue, each as a module whose rule sits on line 3. */
const DEEP: Record<string, string> = {
  'chained ==': `package deep\n\np if ${ones(3000, ' == ')}\n`,
  'chained +': `package deep\n\np := ${ones(3000, ' + ')}\n`,
  '10,000 .a refs': `package deep\n\np := input${'.a'.repeat(10_000)}\n`,
  '10,000 [0] refs': `package deep\n\np := input${'[0]'.repeat(10_000)}\n`,
  'nested arrays': `package deep\n\np := ${'['.repeat(5000)}1${']'.repeat(5000)}\n`,
  'nested comprehensions': `package deep\n\np := ${'[x | x := '.repeat(2000)}1${']'.repeat(2000)}\n`,
};

function compileError(text: string): RegoErrors {
  try {
    compile([{ file: 'deep.rego', text }]);
  } catch (e) {
    expect(e).toBeInstanceOf(RegoErrors);
    return e as RegoErrors;
  }
  throw new Error('compiled without error');
}

describe('deep expressions: located parse errors from the compile API', () => {
  for (const [name, text] of Object.entries(DEEP)) {
    it(name, () => {
      const err = compileError(text);
      expect(err.errors.length).toBeGreaterThan(0);
      const first = err.errors[0]!;
      expect(first.code).toBe('rego_parse_error');
      expect(first.message).toMatch(/max (expression|nesting) depth \d+ exceeded/);
      expect(first.location).toMatchObject({ file: 'deep.rego', row: 3 });
    });
  }

  it('accepts expressions just under the limit and evaluates them', () => {
    const n = MAX_EXPR_DEPTH - 10;
    const policy = compile([{ file: 'ok.rego', text: `package ok\n\np := ${ones(n, ' + ')}\nq := input${'.a'.repeat(n)}\n` }]);
    const rows = policy.prepare('x = data.ok.p').eval({});
    expect(rows[0]!.bindings.x).toBe(n);
  });

  it('rejects a deep query with a located error (parseQuery and prepare)', () => {
    const q = `x := ${ones(3000, ' + ')}`;
    expect(() => parseQuery(q)).toThrow(RegoErrors);
    try {
      compile([]).prepare(q);
      throw new Error('prepared');
    } catch (e) {
      const err = e as RegoErrors;
      expect(err.errors[0]!.code).toBe('rego_parse_error');
      expect(err.errors[0]!.location?.row).toBe(1);
    }
  });
});

describe('a 10,000-rule chain', () => {
  const text = makeChain(10_000);

  function evalOrCleanError(run: () => unknown): void {
    try {
      run();
    } catch (e) {
      expect(e).toBeInstanceOf(EvalError);
      const err = e as EvalError;
      expect(err.code).toMatch(/^eval_/);
      expect(err.message).not.toBe('');
    }
  }

  for (const backend of ['js', 'closures'] as const) {
    it(`compiles (${backend}) and evaluates or fails cleanly`, () => {
      const policy = compile([{ file: 'chain.rego', text }], { backend });
      evalOrCleanError(() => policy.prepare('x = data.chain.p0').eval({}));
      evalOrCleanError(() => policy.prepareDecision(['chain', 'p0'])({}));
      // A short chain in the same policy still evaluates.
      expect(policy.prepare('x = data.chain.p9990').eval({})[0]!.bindings.x).toBe(1);
    }, 60_000);
  }

  it('evaluates or fails cleanly in the reference interpreter', () => {
    const policy = compile([{ file: 'chain.rego', text }]);
    evalOrCleanError(() => prepareInterpreted(policy, 'x = data.chain.p0').eval({}));
  }, 60_000);

  it('a cycle closing a long chain is reported once, as OPA words it', () => {
    const cyc = makeChain(2000).replace('p2000 := 1', 'p2000 := p0');
    const err = compileError(cyc);
    expect(err.errors).toHaveLength(1);
    expect(err.errors[0]!.code).toBe('rego_recursion_error');
    expect(err.errors[0]!.message).toMatch(/^rule data\.chain\.p0 is recursive: data\.chain\.p0 -> data\.chain\.p1 -> /);
  }, 60_000);
});

describe('a body of 5,000 expressions', () => {
  it('plans and runs (statements are emitted in a loop, scheduling is not cubic)', () => {
    let body = '';
    for (let i = 0; i < 5000; i++) body += `\tq${i} = q${i + 1}\n`;
    const policy = compile([{ file: 'long.rego', text: `package long\n\np := q0 if {\n${body}\tq5000 = 7\n}\n` }]);
    expect(policy.prepare('x = data.long.p').eval({})[0]!.bindings.x).toBe(7);
  }, 60_000);
});

describe('last line of defence', () => {
  it('a stack overflow inside a pass becomes a located rego_compile_error naming the pass', () => {
    const pass = PASSES.find((x) => x.name === 'check-types')! as Pass;
    const run = pass.run;
    pass.run = () => {
      throw new RangeError('Maximum call stack size exceeded');
    };
    try {
      const err = compileError('package g\n\nsmall := 1\n\nbig := [1, [2, [3, [4]]]]\n');
      expect(err.errors).toHaveLength(1);
      expect(err.errors[0]).toMatchObject({ code: 'rego_compile_error', message: 'check-types: maximum depth exceeded (policy too deeply nested)' });
      expect(err.errors[0]!.location).toMatchObject({ file: 'deep.rego', row: 5 });
    } finally {
      pass.run = run;
    }
  });
});

describe('other long shapes', () => {
  it('a body of 3,000 iterations compiles (deep loop nests use the closure back end)', () => {
    const body = Array.from({ length: 3000 }, (_, i) => `some x${i} in input`).join('\n\t');
    const policy = compile([{ file: 'scans.rego', text: `package scans\n\np if {\n\t${body}\n}\n` }]);
    expect(policy.prepare('x = data.scans.p').eval({ input: [] as never })).toEqual([]);
  }, 60_000);

  it('an else chain parses iteratively; beyond the depth limit it is a located error', () => {
    const chain = (n: number) =>
      `package e\n\np := 0 if false\n${Array.from({ length: n }, (_, i) => `else := ${i + 1} if false`).join('\n')}\nelse := -1\n`;
    expect(compile([{ file: 'e.rego', text: chain(400) }]).prepare('x = data.e.p').eval({})[0]!.bindings.x).toBe(-1);
    const err = compileError(chain(10_000));
    expect(err.errors[0]).toMatchObject({ code: 'rego_parse_error', message: `max expression depth ${MAX_EXPR_DEPTH} exceeded` });
    expect(err.errors[0]!.location?.row).toBeGreaterThan(3);
  }, 60_000);
});

describe('regent check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-deep-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'regent.js');

  function check(name: string, text: string): { status: number; out: string } {
    const file = join(dir, name);
    writeFileSync(file, text);
    try {
      const out = execFileSync(process.execPath, [bin, 'check', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return { status: 0, out };
    } catch (e) {
      const err = e as { status: number; stdout: string; stderr: string };
      return { status: err.status, out: err.stdout + err.stderr };
    }
  }

  it('prints located errors for deep expressions', () => {
    const r = check('eq.rego', DEEP['chained ==']!);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('eq.rego:3: rego_parse_error: max expression depth');
    const refs = check('refs.rego', DEEP['10,000 .a refs']!);
    expect(refs.out).toContain('refs.rego:3: rego_parse_error');
  }, 60_000);

  it('accepts the 10,000-rule chain', () => {
    const r = check('chain.rego', makeChain(10_000));
    expect(r.out).not.toMatch(/Maximum call stack/);
    expect(r.status).toBe(0);
  }, 60_000);
});
