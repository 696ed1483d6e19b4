// rego.parse_module, rego.metadata.*, print and internal.* builtins (rego.ts).
import { describe, it, expect } from 'vitest';
import { getBuiltin, callBuiltin, type BuiltinContext } from '../../../runtime/builtins/index.js';
import { RObject, RSet, toJS, type Value } from '../../../runtime/value/index.js';
import '../../../compiler/index.js'; // the compiler provides rego.parse_module's parser

function ctx(extras: Record<string, unknown> = {}, printed: string[] = []): BuiltinContext {
  return { strict: true, cache: new Map(), nowNs: 0n, print: (m) => void printed.push(m), runtime: new RObject(), extras };
}
const call = (name: string, args: Value[], c = ctx()) => callBuiltin(getBuiltin(name)!, args, c);

describe('rego.parse_module', () => {
  it('returns OPA JSON AST of the module', () => {
    const v = toJS(call('rego.parse_module', ['x.rego', 'package a.b\n\np := 1\n'])!) as Record<string, unknown>;
    expect(v.package).toEqual({ path: [{ type: 'var', value: 'data' }, { type: 'string', value: 'a' }, { type: 'string', value: 'b' }] });
    expect((v.rules as { head: unknown }[])[0]!.head).toEqual({
      name: 'p', value: { type: 'number', value: 1 }, assign: true, ref: [{ type: 'var', value: 'p' }],
    });
  });

  it('raises a builtin error for invalid source', () => {
    expect(() => call('rego.parse_module', ['x.rego', 'package'])).toThrow(/rego.parse_module: 1 error occurred: x.rego:1: rego_parse_error/);
  });
});

describe('rego.metadata', () => {
  // Calls inside rules are compile-time constants (pass rewrite-rego-metadata-calls);
  // the builtins themselves only run for queries, where OPA raises this error.
  it('fails outside a rule, as OPA does', () => {
    expect(() => call('rego.metadata.chain', [])).toThrow('rego.metadata.chain: the rego.metadata.chain function must only be called within the scope of a rule');
    expect(() => call('rego.metadata.rule', [])).toThrow('rego.metadata.rule: the rego.metadata.rule function must only be called within the scope of a rule');
  });
});

describe('print and internal builtins', () => {
  it('internal.template_string concatenates parts; sets are expression results', () => {
    expect(call('internal.template_string', [['a', RSet.of([1]), 'b', RSet.of([]), RSet.of(['s'])]])).toBe('a1b<undefined>s');
    expect(() => call('internal.template_string', [[RSet.of([1, 2])]])).toThrow(/multiple outputs/);
  });

  it('print and internal.print write to ctx.print', () => {
    const out: string[] = [];
    call('print', ['a', 1, [true]], ctx({}, out));
    call('internal.print', [[RSet.of(['x']), RSet.of([])]], ctx({}, out));
    expect(out).toEqual(['a 1 [true]', 'x <undefined>']);
    expect(call('internal.test_case', [[1]])).toBe(true);
  });
});
