// Unit tests for opa.runtime and trace (opa.ts).
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/opa.js';
import { BuiltinError } from '../../../runtime/builtins/errors.js';
import type { BuiltinContext } from '../../../runtime/builtins/types.js';
import { fromJS, toJS, type Value } from '../../../runtime/value/index.js';

const get = (name: string) => builtins.find((b) => b.decl.name === name)!;

describe('opa.runtime', () => {
  it('returns the runtime document and is nondeterministic', () => {
    const runtime = fromJS({ env: { HOME: '/root' }, version: '1.0.0' });
    const ctx: BuiltinContext = { strict: true, cache: new Map(), nowNs: 0n, print() {}, runtime, extras: {} };
    expect(toJS(get('opa.runtime').impl([], ctx)!)).toEqual({ env: { HOME: '/root' }, version: '1.0.0' });
    expect(get('opa.runtime').decl.nondeterministic).toBe(true);
    expect(get('opa.runtime').decl.args).toEqual([]);
  });
});

describe('trace', () => {
  it('forwards notes to ctx.extras.trace and returns true', () => {
    const notes: string[] = [];
    const ctx: BuiltinContext = { strict: true, cache: new Map(), nowNs: 0n, print() {}, runtime: null, extras: { trace: (n: string) => notes.push(n) } };
    expect(get('trace').impl(['hello'], ctx)).toBe(true);
    expect(notes).toEqual(['hello']);
    const bare: BuiltinContext = { ...ctx, extras: {} };
    expect(get('trace').impl(['x'], bare)).toBe(true);
  });
  it('requires a string', () => {
    const ctx: BuiltinContext = { strict: true, cache: new Map(), nowNs: 0n, print() {}, runtime: null, extras: {} };
    let e: unknown;
    try {
      get('trace').impl([1 as Value], ctx);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(BuiltinError);
    expect((e as BuiltinError).message).toBe('operand 1 must be string but got number');
  });
});
