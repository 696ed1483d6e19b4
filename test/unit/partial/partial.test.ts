// compiler/partial: the doc examples of notes §1.4 as exact OPA JSON, and each
// construct the partial evaluator handles (inlining, support rules, negation,
// copy propagation, non-deterministic builtins, with, every, comprehensions,
// functions, unknowns given as input, input.x or data.x).
import { describe, expect, it } from 'vitest';
import { bodyToJSON, compile, moduleToJSON, partialEval, PartialRefError, type PartialEvalOptions } from '../../../compiler/index.js';
import { formatBody, formatModule } from '../../../compiler/ast/print.js';
import { fromJS } from '../../../runtime/value/index.js';

function pe(src: string, query: string, opts: Partial<Omit<PartialEvalOptions, 'input' | 'data'>> & { input?: unknown; data?: unknown } = {}) {
  const policy = compile([{ file: 'p.rego', text: src }]);
  const { input, data, ...rest } = opts;
  return partialEval(policy, query, {
    unknowns: ['input'],
    ...rest,
    ...(input !== undefined ? { input: fromJS(input as never) } : {}),
    ...(data !== undefined ? { data: fromJS(data as never) } : {}),
  });
}

/** The residual queries as Rego text, one string per alternative. */
function text(r: ReturnType<typeof pe>): string[] {
  return r.queries.map((q) => (q.length === 0 ? 'true' : formatBody(q)));
}

const REPORTS = `package example

allow if input.subject.clearance_level >= data.reports[_].clearance_level
`;

const gte = (v: string) => ({
  index: 0,
  terms: [
    { type: 'ref', value: [{ type: 'var', value: 'gte' }] },
    { type: 'number', value: 4 },
    { type: 'ref', value: [{ type: 'var', value: 'data' }, { type: 'string', value: 'reports' }, { type: 'var', value: v }, { type: 'string', value: 'clearance_level' }] },
  ],
});

describe('doc examples (notes §1.4)', () => {
  const opts = { input: { subject: { clearance_level: 4 } }, unknowns: ['data.reports'], disableInlining: [] };

  it('keeps the comparison with the unknown data.reports', () => {
    const r = pe(REPORTS, 'data.example.allow == true', opts);
    expect(r.queries.map((q) => bodyToJSON(q))).toEqual([[gte('$01')]]);
    expect(r.support).toEqual([]);
  });

  it('adds an empty (always true) body for break_glass', () => {
    const src = `package example

allow if data.break_glass = true

allow if input.subject.clearance_level >= data.reports[_].clearance_level
`;
    const r = pe(src, 'data.example.allow == true', { ...opts, data: { break_glass: true } });
    expect(r.queries.map((q) => bodyToJSON(q))).toEqual([[], [gte('$02')]]);
  });

  it('gives no queries when an exception applies', () => {
    const src = `package example

allow if {
  input.subject.clearance_level >= data.reports[_].clearance_level
  not exceptions[input.subject.name]
}

exceptions contains "bob"
`;
    const r = pe(src, 'data.example.allow == true', { ...opts, input: { subject: { clearance_level: 4, name: 'bob' } } });
    expect(r.queries).toEqual([]);
    // As the notes word it: a rule requiring `exceptions[input.subject.name]`, for a user with no exception.
    const required = src.replace('not exceptions', 'exceptions');
    const none = pe(required, 'data.example.allow == true', { ...opts, input: { subject: { clearance_level: 4, name: 'alice' } } });
    expect(none.queries).toEqual([]);
    expect(none.support).toEqual([]);
  });

  it('follows the summary table', () => {
    const gt = [{ index: 0, terms: [{ type: 'ref', value: [{ type: 'var', value: 'gt' }] }, { type: 'ref', value: [{ type: 'var', value: 'input' }, { type: 'string', value: 'x' }] }, { type: 'number', value: 0 }] }];
    expect(pe('package p', 'input.x > 0').queries.map((q) => bodyToJSON(q))).toEqual([gt]);
    expect(pe('package p', 'input.x > 0', { unknowns: [] }).queries).toEqual([]);
    expect(pe('package p', '1 > 0').queries).toEqual([[]]);
    expect(pe('package p', '1 < 0').queries).toEqual([]);
  });
});

describe('partial evaluation', () => {
  it('evaluates what is known and inlines rules into alternatives', () => {
    const src = `package ex
allow if input.role == "admin"
allow if { some r in input.roles; r == data.ex.good[_] }
good := ["a", "b"]
`;
    const t = text(pe(src, 'data.ex.allow'));
    expect(t).toHaveLength(3);
    // A module's `==` is OPA's `=` (RewriteEquals); a query's stays `==`.
    expect(t[0]).toBe('input.role = "admin"');
    expect(t[1]).toMatch(/^input\.roles\[\S+\] = "a"$/);
    expect(t[2]).toMatch(/^input\.roles\[\S+\] = "b"$/);
  });

  it('understands unknowns given as input.x and data.x', () => {
    const src = 'package ex\nallow if { input.user == "bob"; input.n > data.limits.max }\n';
    expect(text(pe(src, 'data.ex.allow', { unknowns: ['input.n'], input: { user: 'bob' }, data: { limits: { max: 3 } } }))).toEqual(['input.n > 3']);
    expect(text(pe(src, 'data.ex.allow', { unknowns: ['input.n'], input: { user: 'eve' } }))).toEqual([]);
    expect(text(pe(src, 'data.ex.allow', { unknowns: ['data.limits'], input: { user: 'bob', n: 5 } }))).toEqual(['5 > data.limits.max']);
    expect(() => pe(src, 'data.ex.allow', { unknowns: ['foo.bar'] })).toThrow(PartialRefError);
  });

  it('propagates copies into the expressions that use them', () => {
    const src = 'package ex\nallow if { x := input.a; y := x.b; y == 1 }\n';
    expect(text(pe(src, 'data.ex.allow'))).toEqual(['input.a.b = 1']);
  });

  it('keeps an unused binding as an existence test', () => {
    const src = 'package ex\nallow if { x := input.a }\n';
    expect(text(pe(src, 'data.ex.allow'))).toEqual([expect.stringMatching(/^\S+ = input\.a$/)]);
  });

  it('reports query variables as bindings', () => {
    expect(text(pe('package ex', 'x := input.a'))).toEqual(['x = input.a']);
    expect(text(pe('package ex', 'x := 1; input.b == x'))).toEqual(['input.b == 1; x = 1']);
  });

  it('writes default rules, else chains and disableInlining targets as support rules', () => {
    const src = `package ex
default dflt := false
dflt if input.x > 1
f(x) := "big" if { x > 10 } else := "small"
g := f(input.n)
plain if input.y
`;
    const d = pe(src, 'data.ex.dflt == true');
    expect(text(d)).toEqual(['data.partial.ex.dflt == true']);
    expect(formatModule(d.support[0]!)).toBe('package partial.ex\n\ndflt if {\n\tinput.x > 1\n}\n\ndefault dflt := false\n');
    const g = pe(src, 'data.ex.g = v');
    expect(text(g)).toEqual([expect.stringMatching(/^v = data\.partial\.ex\.f\(input\.n\)$/)]);
    expect(formatModule(g.support[0]!)).toMatch(/f\((\S+)\) = "big" if \{\n\t\1 > 10\n\} else = "small"/);
    const p = pe(src, 'data.ex.plain', { disableInlining: ['data.ex.plain'] });
    expect(text(p)).toEqual(['data.partial.ex.plain']);
    expect(moduleToJSON(p.support[0]!)).toEqual({
      package: { path: [{ type: 'var', value: 'data' }, { type: 'string', value: 'partial' }, { type: 'string', value: 'ex' }] },
      rules: [{ body: [{ index: 0, terms: { type: 'ref', value: [{ type: 'var', value: 'input' }, { type: 'string', value: 'y' }] } }], head: { name: 'plain', value: { type: 'boolean', value: true }, ref: [{ type: 'var', value: 'plain' }] } }],
    });
  });

  it('negates residual expressions inline when OPA can, else as a __not support rule', () => {
    const src = `package ex
d1 if not input.locked
d2 if not allow
allow if input.role == "admin"
allow if input.owner == input.user
d3 if not big
big if input.n > 3
big if input.m > 3
`;
    expect(text(pe(src, 'data.ex.d1'))).toEqual(['not input.locked']);
    // not (A or B) = not A and not B: equalities with ref operands are complemented inline.
    expect(text(pe(src, 'data.ex.d2'))).toEqual(['not input.role = "admin"; not input.owner = input.user']);
    // Calls with ref operands are not (classic negation would bind the operands first).
    const r = pe(src, 'data.ex.d3');
    expect(text(r)).toEqual([expect.stringMatching(/^not data\.partial\.__not\d+_\d+_\d+__$/)]);
    expect(r.support).toHaveLength(1);
    expect(formatModule(r.support[0]!)).toMatch(/^package partial\n\n__not\d+_\d+_\d+__ if \{\n\tinput\.n > 3\n\}\n\n__not\d+_\d+_\d+__ if \{\n\tinput\.m > 3\n\}\n$/);
  });

  it('keeps non-deterministic builtins unless asked to evaluate them', () => {
    const src = 'package ex\nok if time.now_ns() > input.t\n';
    expect(text(pe(src, 'data.ex.ok'))).toEqual(['time.now_ns() > input.t']);
    expect(text(pe(src, 'data.ex.ok', { nondeterministicBuiltins: true }))[0]).toMatch(/^\d+ > input\.t$/);
  });

  it('handles with, every, comprehensions and functions', () => {
    const src = `package ex
admin if input.role == "admin"
w if admin with input.role as "admin"
w2 if admin with input as {"role": "dev"}
e if every x in input.xs { x > 1 }
e2 if every x in [1, 2] { x < input.max }
c if count([x | some x in input.xs; x > 1]) > 2
big(x) if x > 10
f if big(input.n)
`;
    // A `with` replacing part of an unknown document stays in the residual (OPA's evalWith).
    const w = pe(src, 'data.ex.w');
    expect(text(w)).toEqual(['data.partial.ex.admin with input.role as "admin"']);
    expect(formatModule(w.support[0]!)).toBe('package partial.ex\n\nadmin if {\n\tinput.role = "admin"\n}\n');
    expect(text(pe(src, 'data.ex.w', { unknowns: ['input.role'] }))).toEqual(['true']);
    expect(text(pe(src, 'data.ex.w2'))).toEqual([]);
    expect(text(pe(src, 'data.ex.e'))).toEqual([expect.stringMatching(/^every (\S+) in input\.xs \{ \1 > 1 \}$/)]);
    expect(text(pe(src, 'data.ex.e2'))).toEqual(['1 < input.max; 2 < input.max']);
    expect(text(pe(src, 'data.ex.c'))).toEqual([expect.stringMatching(/^count\(\[(\S+) \| \1 = input\.xs\[\S+\]; \1 > 1\]\) > 2$/)]);
    expect(text(pe(src, 'data.ex.f'))).toEqual(['input.n > 10']);
  });

  it('writes an every body with several alternatives as a support function', () => {
    const r = pe('package ex\ne if every x in input.xs { x == data.ex.ok[_] }\nok := ["a", "b"]\n', 'data.ex.e');
    expect(text(r)).toEqual([expect.stringMatching(/^every (\S+) in input\.xs \{ data\.partial\.__every\d+_\d+_\d+__\(\1\) \}$/)]);
    expect(formatModule(r.support[0]!)).toMatch(/^package partial\n\n__every\S+\((\S+)\) if \{\n\t\1 = "a"\n\}\n\n__every\S+\(\1\) if \{\n\t\1 = "b"\n\}\n$/);
  });

  it('keeps walk over unknowns and with values that depend on unknowns', () => {
    const src = `package ex
paths contains p if walk(input.doc, [p, "x"])
admin if input.role == "admin"
w if admin with input.role as input.claimed
`;
    // The query's `q` is bound by the walk's output pattern; the last `q` is the ref's truth test.
    expect(text(pe(src, 'data.ex.paths[q]'))).toEqual(['walk(input.doc, [q, "x"]); q']);
    const w = pe(src, 'data.ex.w');
    expect(text(w)).toEqual(['data.partial.ex.admin with input.role as input.claimed']);
  });

  it('keeps a walk over unknowns whose path is a wildcard as written (the shaped walk is for known values)', () => {
    const src = 'package ex\nvals contains v if {\n\twalk(input.doc, [_, v])\n\tv == 1\n}\n';
    expect(text(pe(src, 'data.ex.vals[x]'))).toEqual([expect.stringMatching(/^walk\(input\.doc, \[\$_\d+, 1\]\); 1; x = 1$/)]);
  });
});
