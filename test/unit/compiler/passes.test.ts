// Each compiler pass on small programs: what it produces and the errors it reports.
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../compiler/parser/index.js';
import { PASSES, runPasses } from '../../../compiler/passes/index.js';
import type { CompileState } from '../../../compiler/passes/pass.js';
import { RegoError, RegoErrors } from '../../../compiler/source/diagnostics.js';
import { listIR } from '../../../compiler/ir/listing.js';
import { compile, prepareInterpreted } from '../../../compiler/index.js';
import { fromJS, toJS } from '../../../runtime/value/index.js';

function stateOf(...texts: string[]): CompileState {
  return { opts: {}, errors: [], modules: texts.map((t, i) => parseModule(t, `m${i}.rego`)) };
}

function runUntil(name: string, state: CompileState): CompileState {
  for (const p of PASSES) {
    p.run(state);
    if (p.name === name) break;
  }
  return state;
}

function compileErrors(...texts: string[]): { code: string; message: string; row?: number }[] {
  try {
    runPasses(stateOf(...texts));
    return [];
  } catch (e) {
    if (!(e instanceof RegoErrors)) throw e;
    // The message with its detail lines, as OPA prints an error after its code.
    const text = (x: RegoError) => [x.message, ...(x.details?.detailLines() ?? [])].join('\n\t');
    return e.errors.map((x) => ({ code: x.code, message: text(x), row: x.location?.row }));
  }
}

describe('pass list', () => {
  it('is one ordered list of named passes', () => {
    expect(PASSES.map((p) => p.name)).toEqual(['erase-print', 'resolve-refs', 'rewrite-rego-metadata-calls', 'rule-tree', 'plan', 'check-types', 'check-recursion', 'hoist-invariants', 'comprehension-index', 'rule-index']);
  });
});

describe('resolve-refs', () => {
  it('turns rule names and imports into absolute refs, and leaves locals alone', () => {
    const s = runUntil('resolve-refs', stateOf('package a\nimport data.lib.x as y\nq := 1\np if { q; y.z; v := 1; v }'));
    const body = s.modules[0]!.rules[1]!.body;
    const refOf = (i: number) => {
      const t = (body[i]!.body as { term: { kind: string; head?: { name: string }; path?: { value: string }[] } }).term;
      return t.kind === 'ref' ? [t.head!.name, ...t.path!.map((p) => p.value)].join('.') : t.kind;
    };
    expect(refOf(0)).toBe('data.a.q');
    expect(refOf(1)).toBe('data.lib.x.z');
    expect(refOf(3)).toBe('var');
  });
});

describe('resolve-refs in not { … }', () => {
  it('resolves rule names inside a negated body (rego.v2)', () => {
    const p = compile([{ file: 'a.rego', text: 'package a\nimport rego.v2\nq := false\np if not { q }' }], {});
    expect(p.prepare('x = data.a.p').eval({}).map((r) => toJS(r.bindings.x!))).toEqual([true]);
  });
});

describe('rule-tree', () => {
  it('groups rules by path and kind', () => {
    const s = runUntil('rule-tree', stateOf('package a\np := 1\ns contains 1\no[k] := 1 if k := "x"\nf(x) := x\nb.c.d := 2'));
    const groups = s.tree!.groups.map((g) => `${g.path.join('.')}:${g.kind}`);
    expect(groups).toEqual(['a.p:complete', 'a.s:set', 'a.o:object', 'a.f:function', 'a.b.c.d:complete']);
  });

  it('reports conflicting rule kinds and repeated defaults', () => {
    expect(compileErrors('package a\np := 1\np contains 2')).toEqual([{ code: 'rego_type_error', message: 'conflicting rules data.a.p found', row: 2 }]);
    // OPA: at the package of the first default's module, listing every default.
    const defaults = compileErrors('package a\ndefault p := 1\ndefault p := 2')[0]!;
    expect(defaults.message).toMatch(/^multiple default rules data\.a\.p found at \S*:2, \S*:3$/);
    expect(defaults.row).toBe(1);
    expect(compileErrors('package a\na.b := 1\na.b.c := 2')[0]!.message).toBe('rule data.a.a.b conflicts with [data.a.a.b.c]');
    expect(compileErrors('package a\nf(x) := 1\nf(x, y) := 2')[0]!.message).toBe('conflicting rules data.a.f found');
  });
});

describe('plan (safety and ordering)', () => {
  it('reorders a body so variables are bound before use', () => {
    const s = runUntil('plan', stateOf('package a\np := y if { y := x + 1; x := 2 }'));
    const listing = listIR(s.ir!);
    expect(listing.indexOf('let $1 = 2')).toBeLessThan(listing.indexOf('plus($1, 1)'));
  });

  it('reports unsafe variables with their location', () => {
    expect(compileErrors('package a\n\np if {\n  x > 1\n}')).toEqual([{ code: 'rego_unsafe_var_error', message: 'var x is unsafe', row: 4 }]);
    expect(compileErrors('package a\np if not q[x]\nq contains 1')[0]!.code).toBe('rego_unsafe_var_error');
    // OPA checks heads first (checkSafetyRuleHeads), at the rule, and stops there.
    expect(compileErrors('package a\n\np := x if {\n  y > 1\n}')).toEqual([{ code: 'rego_unsafe_var_error', message: 'var x is unsafe', row: 3 }]);
    expect(compileErrors('package a\np := {"a": input.a, "b": y} if true')[0]!.message).toBe('var y is unsafe');
    expect(compileErrors('package a\nf(x) := [x, 1]\np contains k if some k in [1]')).toEqual([]);
  });

  it('checks builtin arity and unknown functions', () => {
    expect(compileErrors('package a\np := count(1, 2, 3)')[0]!.message).toMatch(/^count: arity mismatch/);
    expect(compileErrors('package a\np := nosuchfn(1)')[0]!.message).toBe('undefined function nosuchfn');
    // OPA's arityMismatchError: a nested call has an output variable (`???`), a body
    // expression of its own has none; user functions count the arguments given.
    expect(compileErrors('package a\np := plus(1)')[0]!.message).toBe('plus: arity mismatch\n\thave: (number, ???)\n\twant: (x: number, y: number)');
    expect(compileErrors('package a\np if plus(1, 2, 3, 4)')[0]!.message).toBe('plus: arity mismatch\n\thave: (number, number, number, number)\n\twant: (x: number, y: number)');
    expect(compileErrors('package a\nf(x) := x\np if f(1, 2, 3)')[0]!.message).toBe('function data.a.f has arity 1, got 3 arguments');
    expect(compileErrors('package a\nf(x, y) := x\np := f(1)')[0]!.message).toBe('function data.a.f has arity 2, got 1 argument');
  });

  it('lets ref keys iterate (generators) and binds composite patterns', () => {
    const s = runUntil('plan', stateOf('package a\np contains k if { input.xs[k] }\nq contains a if { [a, 1] = input.pair }'));
    const listing = listIR(s.ir!);
    expect(listing).toContain('scan input["xs"] key=$0');
    expect(listing).toContain('match [$0, =1] = input["pair"]');
  });
});

describe('check-types', () => {
  it('rejects constant arguments of the wrong type', () => {
    // OPA moves the head's call into the body with an output variable (`???`); `want` ends with the result.
    const e = compileErrors('package a\np := upper(1)')[0]!;
    expect(e.code).toBe('rego_type_error');
    expect(e.message).toBe('upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (x: string, y: string)');
  });

  it('types locals from what bound them, as OPA checks its reordered body', () => {
    const plus = compileErrors('package a\np if { x := 1; y := x + "a"; y > 0 }')[0]!;
    expect(plus.message).toBe('plus: invalid argument(s)\n\thave: (number, string, ???)\n\twant: (x: number, y: number, z: number)');
    const sum = compileErrors('package a\np if { x := upper("a"); sum(x) }')[0]!;
    expect(sum.message).toBe('sum: invalid argument(s)\n\thave: (string)\n\twant: (collection: any<array[number], set[number]>, n: number)');
    const el = compileErrors('package a\np if { x := [1, 2][_]; upper(x) }')[0]!;
    expect(el.message).toBe('upper: invalid argument(s)\n\thave: (number)\n\twant: (x: string, y: string)');
    const obj = compileErrors('package a\np if { x := {"a": 1}; upper(x.a) }')[0]!;
    expect(obj.message).toBe('upper: invalid argument(s)\n\thave: (number)\n\twant: (x: string, y: string)');
  });

  it("carries have/want as OPA's ArgErrDetail (JSON details)", () => {
    try {
      runPasses(stateOf('package a\np := upper(1)'));
      expect.unreachable();
    } catch (e) {
      const err = (e as RegoErrors).errors[0]!;
      expect(err.message).toBe('upper: invalid argument(s)');
      expect(JSON.parse(JSON.stringify(err))).toEqual({
        code: 'rego_type_error',
        message: 'upper: invalid argument(s)',
        location: { file: expect.any(String), row: 2, col: 6 },
        details: { have: [{ type: 'number' }, null], want: { args: [{ type: 'string', name: 'x' }] } },
      });
      expect(String(err)).toMatch(/rego_type_error: upper: invalid argument\(s\)\n\thave: \(number, \?\?\?\)\n\twant: \(x: string, y: string\)$/);
    }
  });

  it('types complete rules with constant values (OPA server test: string + base data)', () => {
    const e = compileErrors('package z\nr := "foo"\np := data.z.r + data.x')[0]!;
    expect(e.message).toBe('plus: invalid argument(s)\n\thave: (string, any, ???)\n\twant: (x: number, y: number, z: number)');
  });

  it('accepts a member type that may fit (any<number, string> for a string argument)', () => {
    expect(compileErrors('package a\np if { x := [1, "a"][_]; upper(x) }')).toEqual([]);
    expect(compileErrors('package a\nr := 1 if input.a\nr := "s" if input.b\np := upper(r)')).toEqual([]);
  });

  it('accepts arguments whose types are only known at run time', () => {
    expect(compileErrors('package a\np := upper(input.x)')).toEqual([]);
  });
});

describe('check-recursion', () => {
  it('reports recursive rules with the cycle', () => {
    const e = compileErrors('package a\np if q\nq if p')[0]!;
    expect(e.code).toBe('rego_recursion_error');
    expect(e.message).toBe('rule data.a.p is recursive: data.a.p -> data.a.q -> data.a.p');
  });
});

describe('hoist-invariants', () => {
  it('moves input and base lookups out of loops, keeping results', () => {
    const text = 'package a\np contains x if { some x in data.xs; x == input.limit }';
    const s = stateOf(text);
    runPasses(s);
    const listing = listIR(s.ir!);
    expect(listing.indexOf('input["limit"]')).toBeLessThan(listing.indexOf('scan'));
    const p = compile([{ file: 'a.rego', text }]);
    const rows = p.prepare('data.a.p').eval({ input: fromJS({ limit: 2 }), data: fromJS({ xs: [1, 2, 3] }) });
    expect(toJS(rows[0]!.expressions[0]!.value)).toEqual([2]);
  });
});

describe('rule-index', () => {
  const text = [
    'package a',
    'allow if { input.method == "GET"; input.path == "/public" }',
    'allow if { input.method == "POST"; input.user == "admin" }',
    'allow if { "DELETE" == input.method; input.user == "root" }',
    'allow if input.user == "superuser"',
  ].join('\n');

  it('indexes definitions by the constant of their leading ground-ref equality', () => {
    const s = stateOf(text);
    runPasses(s);
    const g = s.ir!.groups.find((x) => x.path.join('.') === 'a.allow')!;
    expect(g.index!.entries.map((e) => e.key).sort()).toEqual(['DELETE', 'GET', 'POST']);
    expect(g.index!.always).toEqual([3]);
  });

  it('gives the same answers as evaluating every definition (the interpreter)', () => {
    const p = compile([{ file: 'a.rego', text }]);
    const inputs = [
      { method: 'GET', path: '/public' },
      { method: 'GET', path: '/private' },
      { method: 'POST', user: 'admin' },
      { method: 'DELETE', user: 'root' },
      { method: 'PATCH', user: 'superuser' },
      { user: 'superuser' },
      { method: 'PUT' },
      {},
    ];
    for (const input of inputs) {
      const fast = p.prepare('data.a.allow').eval({ input: fromJS(input) });
      const oracle = prepareInterpreted(p, 'data.a.allow').eval({ input: fromJS(input) });
      expect(fast.map((r) => r.expressions[0]!.value)).toEqual(oracle.map((r) => r.expressions[0]!.value));
    }
  });
});

describe('queries', () => {
  it('capture the value of a single expression, false included (as OPA)', () => {
    const p = compile([{ file: 'a.rego', text: 'package a\ndefault allow := false' }]);
    expect(p.prepare('data.a.allow').eval()[0]!.expressions[0]!.value).toBe(false);
    expect(p.prepare('1 == 2').eval()[0]!.expressions[0]!.value).toBe(false);
  });

  it('test captured values when the query has several expressions', () => {
    const p = compile([{ file: 'a.rego', text: 'package a\ndefault allow := false' }]);
    expect(p.prepare('data.a.allow; true').eval()).toEqual([]);
  });

  it('report user variables only (no wildcards or generated names)', () => {
    const p = compile([{ file: 'a.rego', text: 'package a\nxs := [1, 2]' }]);
    const q = p.prepare('x := data.a.xs[_]');
    expect(q.vars).toEqual(['x']);
    expect(q.eval().map((r) => r.bindings)).toEqual([{ x: 1 }, { x: 2 }]);
  });
});

describe('comprehension-index', () => {
  it('marks a group-by comprehension bound by a let, keyed on the outer variable, and leaves the others', () => {
    const s = runUntil(
      'comprehension-index',
      stateOf('package a\ng contains ks if { v := data.items[_]; ks := [k | some k; v == data.items[k]] }\nh contains n if { v := data.items[_]; n := count([k | some k; v == data.items[k]]) }\nm contains ks if { v := data.items[_]; ks := {k: 1 | some k; v == data.items[k]} }'),
    );
    const compr = (path: string) => {
      const g = s.ir!.groups.find((x) => x.path.join('.') === path)!;
      const e = g.defs[0]!.body.find((st) => st.k === 'let' && st.slot !== 0 && (st.expr.k === 'compr' || st.expr.k === 'call'));
      return e && e.k === 'let' ? e.expr : undefined;
    };
    const g = compr('a.g');
    expect(g?.k === 'compr' && g.index?.keys).toEqual([{ k: 'local', slot: 0 }]);
    // Inside a call (as OPA: only `x := [...]`) it stays as written; an object comprehension is indexed too.
    const h = compr('a.h');
    expect(h?.k === 'call' && h.args[0]!.k === 'compr' && h.args[0]!.index).toBe(undefined);
    const m = compr('a.m');
    expect(m?.k === 'compr' && m.index?.keys).toEqual([{ k: 'local', slot: 0 }]);
  });
});
