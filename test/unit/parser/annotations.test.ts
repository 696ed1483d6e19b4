// Comments and METADATA annotation blocks (compiler/parser/annotations.ts): where
// they attach, their YAML fields and scopes, and the errors for malformed blocks.
import { describe, it, expect } from 'vitest';
import { errorsOf, mod } from './helpers.js';

describe('comments and METADATA annotations', () => {
  it('keeps comments with locations', () => {
    const m = mod('# head\npackage p\n\np := 1 # trailing\n');
    expect(m.comments.map((c) => [c.text, c.loc.row, c.loc.col])).toEqual([[' head', 1, 1], [' trailing', 4, 8]]);
  });

  it('attaches rule annotations', () => {
    const m = mod(`package p

# METADATA
# title: Allow
# description: Allows things
# authors:
# - Jane Doe <jane@example.com>
# - name: Bob
# related_resources:
# - https://example.com
# - ref: https://example.com/2
#   description: two
# organizations: [acme]
# schemas:
#   - input: schema.input
#   - data.x: {"type": "string"}
# custom:
#   severity: high
allow if true
`);
    const [a] = m.rules[0]!.annotations!;
    expect(a).toMatchObject({
      kind: 'annotation', scope: 'rule', title: 'Allow', description: 'Allows things',
      authors: [{ name: 'Jane Doe', email: 'jane@example.com' }, { name: 'Bob' }],
      related_resources: [{ ref: 'https://example.com' }, { ref: 'https://example.com/2', description: 'two' }],
      organizations: ['acme'],
      schemas: [{ path: 'input', schema: 'schema.input' }, { path: 'data.x', definition: { type: 'string' } }],
      custom: { severity: 'high' },
    });
    expect([a!.loc.row, a!.loc.col]).toEqual([3, 1]);
    expect(m.annotations).toEqual([]);
  });

  it('attaches package annotations to the module', () => {
    const m = mod('# METADATA\n# title: Pkg\n# scope: subpackages\npackage p\n\n# METADATA\n# title: R\np := 1');
    expect(m.annotations.map((a) => [a.title, a.scope])).toEqual([['Pkg', 'subpackages']]);
    expect(m.rules[0]!.annotations?.map((a) => [a.title, a.scope])).toEqual([['R', 'rule']]);
  });

  it('uses document scope for entrypoints and honours explicit scopes', () => {
    const m = mod('package p\n# METADATA\n# entrypoint: true\np := 1\n# METADATA\n# scope: document\n# title: d\nq := 1');
    expect(m.rules.map((r) => r.annotations?.[0]?.scope)).toEqual(['document', 'document']);
  });

  it('ends a block at a non-adjacent or indented comment', () => {
    const m = mod('package p\n# METADATA\n# title: A\n\n# not yaml: [\np := 1');
    expect(m.rules[0]!.annotations?.[0]?.title).toBe('A');
  });

  it('reports invalid YAML as a parse error', () => {
    const errs = errorsOf(() => mod('package p\n# METADATA\n# title: [unclosed\np := 1'));
    expect(errs[0]!.code).toBe('rego_parse_error');
    expect(errs[0]!.message).toMatch(/^yaml: /);
    expect(errs[0]!.row).toBeGreaterThanOrEqual(2);
  });

  it('reports misplaced scopes', () => {
    expect(errorsOf(() => mod('package p\n# METADATA\n# scope: package\np := 1'))[0]!.message)
      .toBe("annotation scope 'package' must be applied to package (have rule)");
    expect(errorsOf(() => mod('package p\n# METADATA\n# scope: nope\np := 1'))[0]!.message).toMatch(/invalid annotation scope 'nope'/);
  });
});
