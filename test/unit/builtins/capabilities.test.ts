// capabilities(): OPA-format capabilities generated from the builtin registry, and
// the reference list of OPA v1 builtin names (opa-builtin-names.json, from OPA's
// v1/ast/builtins.go DefaultBuiltins) — every one must be registered. Also: the
// deprecated builtins are undefined functions in v1 and accepted with v0Compatible.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allBuiltins } from '../../../runtime/builtins/registry.js';
import { capabilities } from '../../../runtime/builtins/catalog.js';
import type { TypeSpec } from '../../../runtime/builtins/types.js';
import { compile } from '../../../compiler/index.js';
import { capabilitiesCommand } from '../../../cli/capabilities.js';

const OPA_NAMES = (JSON.parse(readFileSync(join(import.meta.dirname, 'opa-builtin-names.json'), 'utf8')) as { names: string[] }).names;

const TYPES = new Set(['any', 'null', 'boolean', 'number', 'string', 'array', 'set', 'object', 'function']);

/** Problems with a TypeSpec's shape ('' when valid). */
function typeProblems(t: unknown, path: string): string[] {
  if (typeof t !== 'object' || t === null) return [`${path}: not an object`];
  const s = t as TypeSpec & Record<string, unknown>;
  if (!TYPES.has(s.type)) return [`${path}: bad type ${String(s.type)}`];
  const out: string[] = [];
  const allowed: Record<string, string[]> = {
    any: ['of'], null: [], boolean: [], number: [], string: [], array: ['static', 'dynamic'], set: ['of'],
    object: ['static', 'dynamic'], function: ['args', 'result', 'variadic'],
  };
  for (const k of Object.keys(s)) if (k !== 'type' && !allowed[s.type]!.includes(k)) out.push(`${path}: unexpected key ${k}`);
  switch (s.type) {
    case 'any': (s.of ?? []).forEach((x, i) => out.push(...typeProblems(x, `${path}.of[${i}]`))); break;
    case 'set': out.push(...typeProblems(s.of, `${path}.of`)); break;
    case 'array':
      (s.static ?? []).forEach((x, i) => out.push(...typeProblems(x, `${path}.static[${i}]`)));
      if (s.dynamic) out.push(...typeProblems(s.dynamic, `${path}.dynamic`));
      break;
    case 'object':
      (s.static ?? []).forEach((p, i) => {
        if (typeof p.key !== 'string') out.push(`${path}.static[${i}].key: not a string`);
        out.push(...typeProblems(p.value, `${path}.static[${i}].value`));
      });
      if (s.dynamic) out.push(...typeProblems(s.dynamic.key, `${path}.dynamic.key`), ...typeProblems(s.dynamic.value, `${path}.dynamic.value`));
      break;
    case 'function':
      if (s.args !== undefined && !Array.isArray(s.args)) out.push(`${path}.args: not an array`);
      (s.args ?? []).forEach((x, i) => out.push(...typeProblems(x, `${path}.args[${i}]`)));
      if (s.result) out.push(...typeProblems(s.result, `${path}.result`));
      if (s.variadic) out.push(...typeProblems(s.variadic, `${path}.variadic`));
      break;
  }
  return out;
}

describe('capabilities()', () => {
  const caps = capabilities();

  it('lists exactly the registered builtins, sorted by name', () => {
    const names = caps.builtins.map((b) => b.name);
    expect(names).toEqual(allBuiltins().map((b) => b.decl.name));
    expect([...names].sort()).toEqual(names);
  });

  it('gives every builtin a function decl with valid TypeSpec shapes', () => {
    const problems: string[] = [];
    for (const b of caps.builtins) {
      expect(b.decl.type).toBe('function');
      problems.push(...typeProblems(b.decl, b.name));
    }
    for (const d of allBuiltins().map((x) => x.decl)) {
      d.args.forEach((a, i) => problems.push(...typeProblems(a, `${d.name}.args[${i}]`)));
      if (d.result) problems.push(...typeProblems(d.result, `${d.name}.result`));
      if (d.variadic) problems.push(...typeProblems(d.variadic, `${d.name}.variadic`));
    }
    expect(problems).toEqual([]);
  });

  it('has OPA shapes for operators, relations, variadics and deprecated builtins', () => {
    const by = new Map(caps.builtins.map((b) => [b.name, b]));
    expect(by.get('plus')).toEqual({ name: 'plus', decl: { args: [{ type: 'number' }, { type: 'number' }], result: { type: 'number' }, type: 'function' }, infix: '+' });
    expect(by.get('walk')!.relation).toBe(true);
    expect(by.get('print')!.decl).toEqual({ type: 'function', variadic: { type: 'any' } });
    expect(by.get('opa.runtime')!.decl.args).toBeUndefined();
    expect(by.get('time.now_ns')!.nondeterministic).toBe(true);
    for (const n of ['re_match', 'set_diff', 'net.cidr_overlap', 'all', 'any', 'cast_array']) expect(by.get(n)!.deprecated).toBe(true);
  });

  it('lists features and Wasm ABI versions as OPA v1 does (v1.12.2–v1.16.1 files), future keywords only for v0', () => {
    expect(caps.future_keywords).toBeUndefined();
    expect(caps.features).toEqual(['keywords_in_refs', 'rego_v1', 'template_strings']);
    expect(caps.wasm_abi_versions).toEqual([{ version: 1, minor_version: 1 }, { version: 1, minor_version: 2 }]);
    const v0 = capabilities({ v0Compatible: true });
    expect(v0.features).toEqual(['keywords_in_refs', 'rego_v1', 'rego_v1_import', 'rule_head_ref_string_prefixes', 'rule_head_refs']);
    expect(v0.future_keywords).toEqual(['contains', 'every', 'if', 'in']);
  });

  it('includes every builtin OPA v1 defines', () => {
    expect(OPA_NAMES.length).toBeGreaterThan(190);
    const have = new Set(allBuiltins().map((b) => b.decl.name));
    expect(OPA_NAMES.filter((n) => !have.has(n))).toEqual([]);
  });
});

describe('regent capabilities', () => {
  const run = (argv: string[]) => {
    let out = '';
    let err = '';
    const code = capabilitiesCommand(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
    return { code, out, err };
  };

  it('--current prints the capabilities JSON', () => {
    const r = run(['--current']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.builtins.length).toBe(allBuiltins().length);
    expect(Object.keys(doc)).toEqual(['builtins', 'wasm_abi_versions', 'features']);
  });

  it('rejects unknown versions and conflicting flags', () => {
    expect(run(['--version', 'v0.1.2']).code).toBe(1);
    expect(run(['--current', '--version', 'x']).code).toBe(1); // a usage error: exit 1, as cobra
  });
});

describe('deprecated builtins', () => {
  const evalQuery = (src: string, query: string, v0: boolean) =>
    compile([{ file: 'p.rego', text: src }], { v0Compatible: v0 }).prepare(query).eval();
  const errorOf = (fn: () => unknown): { code?: string; message?: string } => {
    try {
      fn();
    } catch (e) {
      const x = e as { errors?: { code: string; message: string }[] };
      return x.errors?.[0] ?? { message: String(e) };
    }
    return {};
  };

  it('are undefined functions in v1 modules', () => {
    for (const [call, name] of [['re_match("a", "a")', 're_match'], ['set_diff({1}, {2})', 'set_diff'], ['all([true])', 'all'], ['cast_array([1])', 'cast_array'], ['net.cidr_overlap("1.0.0.0/8", "1.2.3.4")', 'net.cidr_overlap']]) {
      const e = errorOf(() => evalQuery(`package p\n\nq if ${call}\n`, 'data.p.q', false));
      expect(e).toMatchObject({ code: 'rego_type_error', message: `undefined function ${name}` });
    }
  });

  it('are undefined functions in v1 queries', () => {
    const e = errorOf(() => evalQuery('package p\n', 'x := any([false, true])', false));
    expect(e).toMatchObject({ code: 'rego_type_error', message: 'undefined function any' });
  });

  it('work in v0 mode', () => {
    const rows = evalQuery('package p\n\nq { re_match("^a", "abc"); set_diff({1, 2}, {2}) == {1}; all([true]) }\n', 'data.p.q', true);
    expect(rows[0]!.expressions[0]!.value).toBe(true);
    expect(evalQuery('package p\n', 'x := any([false, true])', true)[0]!.bindings.x).toBe(true);
  });
});

describe('declarations as OPA capabilities files write them (checked against v1.0.0 and v1.16.1)', () => {
  const decl = (name: string) => capabilities().builtins.find((b) => b.name === name)!;
  it('lists any<…> members in OPA type order (NewAny sorts: string, array, object, set)', () => {
    const of = (decl('count').decl.args as { of: { type: string }[] }[])[0]!.of.map((t) => t.type);
    expect(of).toEqual(['string', 'array', 'object', 'set']);
    expect((decl('sum').decl.args as { of: { type: string }[] }[])[0]!.of.map((t) => t.type)).toEqual(['array', 'set']);
  });
  it('types JWT results as object[any: any] and flags the signers nondeterministic', () => {
    const anyObj = { dynamic: { key: { type: 'any' }, value: { type: 'any' } }, type: 'object' };
    expect(decl('io.jwt.decode').decl.result).toEqual({ static: [anyObj, anyObj, { type: 'string' }], type: 'array' });
    expect(decl('io.jwt.decode_verify').decl.args).toEqual([{ type: 'string' }, { dynamic: { key: { type: 'string' }, value: { type: 'any' } }, type: 'object' }]);
    for (const n of ['io.jwt.decode_verify', 'io.jwt.encode_sign', 'io.jwt.encode_sign_raw']) expect(decl(n).nondeterministic).toBe(true);
    expect(decl('io.jwt.decode').nondeterministic).toBeUndefined();
  });
  it('declares regex.is_valid(string) and rego.metadata.rule() => any', () => {
    expect(decl('regex.is_valid').decl.args).toEqual([{ type: 'string' }]);
    expect(decl('rego.metadata.rule').decl.result).toEqual({ type: 'any' });
  });
});
