// The filter translator on hand-written residual queries (the shapes partial
// evaluation produces, parsed with the query parser): fragment checks with OPA's
// messages, UCAST trees, SQL per dialect, mappings. No partial evaluator involved.
import { describe, expect, it } from 'vitest';
import { compile, parseQuery } from '../../compiler/index.js';
import type { Body } from '../../compiler/ast/nodes.js';
import { ConstraintSet, FilterASTErrors, filterAnnotations, checkResidual, queriesToUcast, translate, ucastToJS, ucastToSql, translateField, lookupMappings, type UcastNode } from '../../compiler/filters/index.js';
import { fromJS } from '../../runtime/index.js';

const q = (...bodies: string[]): Body[] => bodies.map((b) => (b === '' ? [] : parseQuery(b, 'filters.rego')));
const check = (bodies: Body[], target: string, dialect: string, shorts: string[] = []) =>
  checkResidual(bodies, [], { constraints: ConstraintSet.of([{ target, dialect }]), shorts: new Set(shorts) }).map((e) => e.toJSON());

/** A UCAST tree from plain JSON (for the renderer vectors). */
function tree(j: any): UcastNode {
  if (j.type === 'compound') return { type: 'compound', operator: j.operator, value: j.value.map(tree) };
  return { type: 'field', field: j.field, operator: j.operator, value: j.value === null ? null : fromJS(j.value) };
}

describe('UCAST translation', () => {
  it('comparisons, flipping, null, field refs, in-sets, not', () => {
    expect(ucastToJS(queriesToUcast(q('input.fruits.colour = "orange"')))).toEqual({ type: 'field', field: 'fruits.colour', operator: 'eq', value: 'orange' });
    expect(ucastToJS(queriesToUcast(q('10 <= input.fruits.price')))).toEqual({ type: 'field', field: 'fruits.price', operator: 'gt', value: 10 });
    expect(ucastToJS(queriesToUcast(q('10 <= input.fruits.price'), { mirrorComparisons: true }))).toEqual({ type: 'field', field: 'fruits.price', operator: 'gte', value: 10 });
    expect(ucastToJS(queriesToUcast(q('"apple" != input.fruits.name')))).toEqual({ type: 'field', field: 'fruits.name', operator: 'ne', value: 'apple' });
    expect(ucastToJS(queriesToUcast(q('input.fruits.name in {"pear", "apple"}')))).toEqual({ type: 'field', field: 'fruits.name', operator: 'in', value: ['apple', 'pear'] });
    expect(ucastToJS(queriesToUcast(q('input.fruits.colour = _')))).toEqual({ type: 'field', field: 'fruits.colour', operator: 'ne', value: null });
    expect(ucastToJS(queriesToUcast(q('input.fruits.price < input.fruits.max_price')))).toEqual({ type: 'field', field: 'fruits.price', operator: 'lt', value: { field: 'fruits.max_price' } });
    expect(ucastToJS(queriesToUcast(q('not input.fruits.name == "apple"')))).toEqual({ type: 'compound', operator: 'not', value: [{ type: 'field', field: 'fruits.name', operator: 'eq', value: 'apple' }] });
    expect(queriesToUcast(q('input.a.b = 1', ''))).toBeUndefined();
  });

  it('the bench policy shape: or of ands, in order', () => {
    const t = queriesToUcast(q('input.tickets.tenant = 2; input.users.name = "caesar"', 'input.tickets.tenant = 2; input.tickets.assignee = null; input.tickets.resolved = false'));
    const pg = ucastToSql(t, 'postgresql');
    expect(pg).toBe("WHERE ((tickets.tenant = E'2' AND users.name = E'caesar') OR (tickets.tenant = E'2' AND tickets.assignee IS NULL AND tickets.resolved = FALSE))");
    expect(ucastToSql(t, 'sqlserver')).toContain("N'caesar'");
    expect(ucastToSql(t, 'mysql')).toContain("'caesar'");
  });

  it('multi-target translation and unconditional answers', () => {
    const targets = [{ target: 'sql', dialect: 'mysql' }, { target: 'ucast', dialect: 'prisma' }];
    const yes = translate(q(''), { targets });
    expect(yes.map((f) => f.query)).toEqual([{ sql: '' }, { ucast: undefined }]);
    const no = translate([], { targets });
    expect(no.every((f) => f.query === undefined)).toBe(true);
  });
});

describe('SQL escaping', () => {
  const f = (value: string, op = 'eq') => tree({ type: 'field', field: 't.c', operator: op, value });
  it('v1.38.1 backslash escapes for postgresql and mysql', () => {
    expect(ucastToSql(f("it's \\ \"x\"\n"), 'postgresql')).toBe("WHERE t.c = E'it\\'s \\\\ \\\"x\\\"\\n'");
    expect(ucastToSql(f("it's"), 'mysql')).toBe("WHERE t.c = 'it\\'s'");
  });
  it('quote doubling for sqlite and sqlserver (no backslash escapes there)', () => {
    expect(ucastToSql(f("x' OR 1=1 --"), 'sqlite')).toBe("WHERE t.c = 'x'' OR 1=1 --'");
    expect(ucastToSql(f("x' OR 1=1 --"), 'sqlserver')).toBe("WHERE t.c = N'x'' OR 1=1 --'");
    expect(ucastToSql(f('a\0b'), 'sqlite')).toBe("WHERE t.c = 'a'||char(0)||'b'");
    expect(ucastToSql(f('a_b', 'startswith'), 'sqlserver')).toBe("WHERE t.c LIKE N'a\\_b%' ESCAPE '\\'");
  });
  it('plain identifiers raw, others quoted per dialect', () => {
    const g = (field: string) => tree({ type: 'field', field, operator: 'eq', value: 1 });
    expect(ucastToSql(g('public.fruits.name'), 'postgresql')).toBe("WHERE public.fruits.name = E'1'");
    expect(ucastToSql(g('fruits.name = 1 OR 1=1 --'), 'postgresql')).toBe(`WHERE fruits."name = 1 OR 1=1 --" = E'1'`);
    expect(ucastToSql(g('t.a"b'), 'sqlite')).toBe(`WHERE t."a""b" = '1'`);
    expect(ucastToSql(g('t.a`b'), 'mysql')).toBe("WHERE t.`a``b` = '1'");
    expect(ucastToSql(g('t.a]b c'), 'sqlserver')).toBe("WHERE t.[a]]b c] = N'1'");
  });
  it('empty IN is false', () => {
    expect(ucastToSql(tree({ type: 'field', field: 't.c', operator: 'in', value: [] }), 'postgresql')).toBe('WHERE 0 = 1');
  });
  it('null only with eq and ne', () => {
    expect(() => ucastToSql(tree({ type: 'field', field: 't.c', operator: 'lt', value: null }), 'postgresql')).toThrow("null value can only be used with 'eq' or 'ne' operators");
  });
});

describe('fragment checks', () => {
  it('OPA messages', () => {
    expect(check(q('input.fruits.colour'), 'ucast', 'prisma')).toEqual([
      { code: 'pe_fragment_error', message: 'invalid statement "input.fruits.colour"', location: { file: 'filters.rego', row: 1, col: 1 }, details: { details: 'try `input.fruits.colour != false`' } },
    ]);
    expect(check(q('not input.fruits.name == "apple"'), 'ucast', 'linq')[0]!.message).toBe('"not" not permitted: unsupported feature "not" for UCAST (LINQ)');
    expect(check(q('input.fruits.name in {"a"}'), 'ucast', 'minimal')[0]).toMatchObject({ message: 'invalid builtin `in`: unsupported for UCAST', location: { col: 19 } });
    expect(check(q('startswith(input.fruits.name, "a")'), 'sql', 'sqlite')[0]!.message).toBe('invalid builtin `startswith`: unsupported for SQL (sqlite)');
    expect(check(q('object.get(input, ["a"], 1, x); x = "orange"'), 'ucast', 'prisma')[0]!.message).toBe('invalid builtin `object.get`');
    expect(check(q('gt(equal(input.fruits.colour, "orange"), 0)'), 'ucast', 'prisma')[0]!.message).toBe('gt: nested call operand: equal(input.fruits.colour, "orange")');
    expect(check(q('input.fruits.colour = input.baskets.colour'), 'ucast', 'prisma')[0]!.message).toBe('reference to field: unsupported feature "field-ref" for UCAST (prisma)');
    expect(check(q('contains("foobar", input.fruits.colour)'), 'ucast', 'prisma')[0]!.message).toBe('rhs of contains must be known');
    expect(check(q('input.fruits.colour <= {"green"}'), 'ucast', 'prisma')[0]!.message).toBe('both rhs and lhs non-scalar/non-ground');
    expect(check(q('input.fruits.colour = _'), 'ucast', 'linq')).toEqual([{ code: 'pe_fragment_error', message: 'existence of field: unsupported feature "existence-ref" for UCAST (LINQ)' }]);
    expect(check(q('input.fruits.colour = _'), 'sql', 'mysql')).toEqual([]);
    expect(check(q('input.fruits[x].price > 1'), 'ucast', 'prisma')[0]!.message).toBe('gt: invalid ref operand: input.fruits[x].price');
    expect(check(q('input.name != "a"'), 'ucast', 'prisma', ['name'])).toEqual([]);
    expect(check(q('input.name != "a"'), 'ucast', 'prisma')[0]!.message).toBe('neq: invalid ref operand: input.name');
    expect(check(q('data.filters.other'), 'ucast', 'prisma')[0]).toMatchObject({ message: 'invalid data reference "data.filters.other"', details: { details: 'has rule "data.filters.other" an `else`?' } });
    expect(check(q('data.filters.func(input.fruits)'), 'ucast', 'prisma')[0]).toMatchObject({ message: 'invalid data reference "data.filters.func(input.fruits)"', details: { details: 'has function "data.filters.func(...)" an `else`?' } });
  });
  it('multitarget joins the refusals of each target', () => {
    const errs = checkResidual(q('startswith(input.t.c, "a")'), [], { constraints: ConstraintSet.of([{ target: 'ucast', dialect: 'linq' }, { target: 'sql', dialect: 'sqlite' }]), shorts: new Set() });
    expect(errs[0]!.message).toBe('invalid builtin `startswith`: unsupported for UCAST (LINQ)\nunsupported for SQL (sqlite)');
  });
});

describe('mappings', () => {
  it('lookup order and validation', () => {
    expect(lookupMappings({ postgresql: { a: { $self: 'A' } } }, 'sql', 'mysql')).toEqual({ postgresql: { a: { $self: 'A' } } });
    expect(lookupMappings({ sql: { a: { $self: 'A' } } }, 'sql', 'mysql')).toEqual({ a: { $self: 'A' } });
    expect(() => lookupMappings({ postgresql: 'nope' }, 'sql', 'postgresql')).toThrow('mappings: invalid mappings for dialect postgresql');
    expect(() => lookupMappings({ fruit: { $self: 123 } }, 'sql', 'postgresql')).toThrow('mappings: invalid mappings: fruit.$self: expected string, got int');
    expect(translateField('name', { name: { $table: 'fruit' }, fruit: { $self: 'F', name: 'N' } })).toBe('F.N');
  });
});

describe('compile: annotations', () => {
  const ann = (text: string, path = ['p', 'include']) => filterAnnotations(compile([{ file: 'p.rego', text }]).modules, path);
  it('unknowns are the union along the chain; the first mask_rule wins, relative to the package', () => {
    const text = '# METADATA\n# scope: package\n# compile:\n#   unknowns: [input.a]\n#   mask_rule: pkg_mask\npackage p\n# METADATA\n# scope: document\n# compile:\n#   unknowns: [input.b]\n#   mask_rule: data.other.m\ninclude if input.a.x == input.b.y\n';
    expect(ann(text)).toEqual({ unknowns: ['input.b', 'input.a'], maskRule: ['other', 'm'] });
  });
  it('custom: is read when compile: is absent (policies written for EOPA before 1.44)', () => {
    expect(ann('package p\n# METADATA\n# custom:\n#   unknowns: [input.t]\n#   mask_rule: m\ninclude if input.t.c == 1\n')).toEqual({ unknowns: ['input.t'], maskRule: ['p', 'm'] });
  });
  it('no rule at the path: nothing; bad refs: invalid_unknown at the METADATA block', () => {
    expect(ann('package p\nother := 1\n')).toEqual({ unknowns: [] });
    let caught: unknown;
    try {
      ann('package p\n# METADATA\n# compile:\n#   unknowns: [foo.bar, input.ok]\ninclude if true\n');
    } catch (e) {
      caught = e;
    }
    expect((caught as FilterASTErrors).errors.map((e) => e.toJSON())).toEqual([{ code: 'invalid_unknown', message: 'unknowns must be prefixed with `input` or `data`: foo.bar', location: { file: 'p.rego', row: 2, col: 1 } }]);
  });
});
