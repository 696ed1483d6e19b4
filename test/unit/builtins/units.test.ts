// Unit tests for units.parse and units.parse_bytes (OPA's parsing, exactness and messages).
import { describe, expect, it } from 'vitest';
import type { Value } from '../../../runtime/value/value.js';
import { parseNumber } from '../../../runtime/value/number.js';
import { registryCaller, callErrors } from './helpers.js';

const call = registryCaller();
const err = callErrors(call);
import { equal } from '../../../runtime/value/compare.js';
const eqNum = (v: Value | undefined, text: string): boolean => v !== undefined && equal(v, parseNumber(text));

describe('units.parse', () => {
  it('SI and binary units, exact results', () => {
    expect(call('units.parse', '500m')).toBe(0.5);
    expect(call('units.parse', '0.0005K')).toBe(0.5);
    expect(call('units.parse', '1.1Ki')).toBe(1126.4);
    expect(call('units.parse', '10KI')).toBe(10240);
    expect(call('units.parse', '"100TI"')).toBe(109951162777600);
    expect(eqNum(call('units.parse', '10E'), '10000000000000000000')).toBe(true);
    expect(eqNum(call('units.parse', '10Ei'), '11529215046068469760')).toBe(true);
    expect(call('units.parse', '-3.5E2m')).toBe(-0.35);
    expect(call('units.parse', '1e-2')).toBe(0.01);
    expect(call('units.parse', '.0')).toBe(0);
    expect(call('units.parse', '1G')).toBe(1000000000);
    expect(not(call('units.parse', '5E'), 5)).toBe(true);
  });
  it('errors like OPA', () => {
    expect(err('units.parse', '')).toBe('eval_builtin_error: units.parse: no amount provided');
    expect(err('units.parse', 'G')).toBe('eval_builtin_error: units.parse: no amount provided');
    expect(err('units.parse', '0.0.0')).toBe('eval_builtin_error: units.parse: could not parse amount to a number');
    expect(err('units.parse', '100 k')).toBe('eval_builtin_error: units.parse: spaces not allowed in resource strings');
    expect(err('units.parse', '10e10000000Ei')).toBe('eval_builtin_error: units.parse: exponent too large');
    expect(err('units.parse', '10Xi')).toBe('eval_builtin_error: units.parse: unit Xi not recognized');
    expect(err('units.parse', 5)).toBe('eval_type_error: units.parse: operand 1 must be string but got number');
  });
});

describe('units.parse_bytes', () => {
  it('decimal and binary byte units, 64-bit float rounding', () => {
    expect(call('units.parse_bytes', '10KB')).toBe(10000);
    expect(call('units.parse_bytes', '10Kib')).toBe(10240);
    expect(call('units.parse_bytes', '1.1KiB')).toBe(1126);
    expect(call('units.parse_bytes', '.5KB')).toBe(500);
    expect(call('units.parse_bytes', '1e-2KB')).toBe(10);
    expect(call('units.parse_bytes', '3.2E2MiB')).toBe(335544320);
    expect(call('units.parse_bytes', '"100TIB"')).toBe(109951162777600);
    expect(eqNum(call('units.parse_bytes', '10eib'), '11529215046068469760')).toBe(true);
    expect(call('units.parse_bytes', '0.0')).toBe(0);
    expect(call('units.parse_bytes', '-5kb')).toBe(-5000);
  });
  it('errors like OPA', () => {
    expect(err('units.parse_bytes', '')).toBe('eval_builtin_error: units.parse_bytes: no byte amount provided');
    expect(err('units.parse_bytes', '.5.2')).toBe('eval_builtin_error: units.parse_bytes: could not parse byte amount to a number');
    expect(err('units.parse_bytes', ' 327MiB ')).toBe('eval_builtin_error: units.parse_bytes: spaces not allowed in resource strings');
    expect(err('units.parse_bytes', '10e10000000EiB')).toBe('eval_builtin_error: units.parse_bytes: exponent too large');
    expect(err('units.parse_bytes', '5xb')).toBe('eval_builtin_error: units.parse_bytes: byte unit xb not recognized');
  });
  it('handles huge exponents quickly', () => {
    const t0 = Date.now();
    expect(call('units.parse_bytes', '1e999999KB')).toBeDefined();
    expect(call('units.parse', '1e-999999')).toBe(0);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

function not(v: Value | undefined, n: number): boolean {
  return v !== n;
}
