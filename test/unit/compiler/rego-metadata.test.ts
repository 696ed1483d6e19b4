// Pass rewrite-rego-metadata-calls (compiler/passes/rego-metadata.ts) and the
// annotation set behind it (annotation-set.ts): which calls become which constants,
// the chain order, OPA's JSON shape of an annotation, and redeclaration errors.
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../compiler/parser/index.js';
import { PASSES, runPasses } from '../../../compiler/passes/index.js';
import type { CompileState } from '../../../compiler/passes/pass.js';
import { rewriteRegoMetadataCalls } from '../../../compiler/passes/rego-metadata.js';
import { AnnotationSet, annotationValue, rulePath } from '../../../compiler/passes/annotation-set.js';
import { formatBody, formatTerm } from '../../../compiler/ast/print.js';
import type { Rule } from '../../../compiler/ast/nodes.js';
import { RegoErrors } from '../../../compiler/source/diagnostics.js';
import { compile } from '../../../compiler/index.js';
import { toJS } from '../../../runtime/value/index.js';

function stateOf(...texts: string[]): CompileState {
  return { opts: {}, errors: [], modules: texts.map((t, i) => parseModule(t, `m${i}.rego`)) };
}

/** Run the passes up to and including the metadata rewrite. */
function rewritten(...texts: string[]): CompileState {
  const s = stateOf(...texts);
  for (const p of PASSES) {
    p.run(s);
    if (p === rewriteRegoMetadataCalls) break;
  }
  return s;
}

const body = (r: Rule) => formatBody(r.body);

describe('rewrite-rego-metadata-calls', () => {
  it('runs right after resolve-refs, before the rule tree is built', () => {
    const names = PASSES.map((p) => p.name);
    expect(names.indexOf('rewrite-rego-metadata-calls')).toBe(names.indexOf('resolve-refs') + 1);
    expect(names.indexOf('rewrite-rego-metadata-calls')).toBeLessThan(names.indexOf('rule-tree'));
  });

  it('replaces calls in bodies, heads and nested bodies by constants', () => {
    const s = rewritten('package a\n\n# METADATA\n# title: T\np := rego.metadata.rule() if {\n  x := rego.metadata.chain()\n  [y | y := rego.metadata.rule().title]\n  every z in [1] { rego.metadata.rule() }\n}\n');
    const r = s.modules[0]!.rules[0]!;
    expect(formatTerm(r.head.value!)).toBe('{"scope": "rule", "title": "T"}');
    const text = body(r);
    expect(text).not.toContain('rego.metadata');
    expect(text).toContain('x := [{"annotations": {"scope": "rule", "title": "T"}, "path": ["a", "p"]}]');
    expect(text).toContain('{"scope": "rule", "title": "T"}.title');
  });

  it('turns the output-argument form into a unification', () => {
    const s = rewritten('package a\np if rego.metadata.chain(c)');
    expect(body(s.modules[0]!.rules[0]!)).toBe('c = [{"path": ["a", "p"]}]');
  });

  it('gives else branches and unannotated rules {} and a bare leading chain entry', () => {
    const s = rewritten('package a\n\n# METADATA\n# title: f\nf(x) := rego.metadata.rule() if x > 0\nelse := rego.metadata.rule()\n');
    const r = s.modules[0]!.rules[0]!;
    expect(formatTerm(r.head.value!)).toBe('{"scope": "rule", "title": "f"}');
    expect(formatTerm(r.else!.head.value!)).toBe('{}');
  });

  it('leaves modules without metadata calls untouched', () => {
    const s = stateOf('package a\n# METADATA\n# title: t\np := 1');
    PASSES[0]!.run(s);
    const before = s.modules;
    rewriteRegoMetadataCalls.run(s);
    expect(s.modules).toBe(before);
  });

  it('leaves queries alone: the builtin then fails (undefined, or an error when strict)', () => {
    const prepared = compile([{ file: 'x.rego', text: 'package a\np := 1' }], {}).prepare('x := rego.metadata.rule()');
    expect(prepared.eval({})).toEqual([]);
    expect(() => prepared.eval({ strictBuiltinErrors: true })).toThrow(/rego.metadata.rule: the rego.metadata.rule function must only be called within the scope of a rule/);
  });

  it('feeds every back end the same constants', () => {
    const files = [{ file: 'x.rego', text: '# METADATA\n# description: d\npackage a\n\n# METADATA\n# title: t\np := [rego.metadata.rule(), count(rego.metadata.chain())]' }];
    for (const backend of ['js', 'closures'] as const) {
      const rows = compile(files, { backend }).prepare('x = data.a.p').eval({});
      expect(toJS(rows[0]!.bindings.x!)).toEqual([{ scope: 'rule', title: 't' }, 2]);
    }
  });
});

describe('annotation set', () => {
  const set = (...texts: string[]) => {
    const s = stateOf(...texts);
    return { set: new AnnotationSet(s.modules, s.errors), s };
  };

  it('orders the chain rule → document → package → subpackages (innermost first)', () => {
    const { set: as, s } = set(
      '# METADATA\n# scope: subpackages\n# title: root\npackage x',
      '# METADATA\n# scope: subpackages\n# title: mid\npackage x.y',
      '# METADATA\n# title: pkg\npackage x.y.z\n\n# METADATA\n# scope: document\n# title: doc\np := 1\n\n# METADATA\n# title: rule\np := 2',
    );
    const m = s.modules[2]!;
    const r = m.rules[1]!;
    const chain = as.chain(r, ['x', 'y', 'z'], rulePath(['x', 'y', 'z'], r)) as { annotations?: { title: string }; path: string[] }[];
    expect(chain.map((e) => `${e.annotations?.title}@${e.path.join('.')}`)).toEqual(['rule@x.y.z.p', 'doc@x.y.z.p', 'pkg@x.y.z', 'mid@x.y', 'root@x']);
    expect(as.rule(m.rules[0]!)).toEqual({});
  });

  it('renders annotations as OPA does: scope always, empty fields omitted, refs as strings', () => {
    const m = parseModule('package a\n# METADATA\n# title: t\n# schemas:\n# - input.x: schema.y\n# authors:\n# - name: N\n# custom: {}\np := 1', 'm.rego');
    expect(annotationValue(m.rules[0]!.annotations![0]!)).toEqual({ scope: 'rule', title: 't', authors: [{ name: 'N' }], schemas: [{ path: ['input', 'x'], schema: ['schema', 'y'] }] });
  });

  it('reports a second package or document annotation for the same path', () => {
    const errs = set('# METADATA\n# title: a\npackage p', '# METADATA\n# title: b\npackage p').s.errors;
    expect(errs.map((e) => [e.code, e.message, e.location?.file])).toEqual([['rego_type_error', 'package annotation redeclared: m0.rego:1', 'm1.rego']]);
    const doc = set('package p\n# METADATA\n# scope: document\np := 1\n# METADATA\n# scope: document\np := 2').s.errors;
    expect(doc.map((e) => e.message)).toEqual(['document annotation redeclared: m0.rego:2']);
    expect(() => runPasses(stateOf('# METADATA\n# title: a\npackage p', '# METADATA\n# title: b\npackage p'))).toThrow(RegoErrors);
  });
});
