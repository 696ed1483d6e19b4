// Unit tests for uuid.rfc4122 (per-query caching) and uuid.parse.
import { describe, expect, it } from 'vitest';
import { getBuiltin, callBuiltin } from '../../../runtime/builtins/registry.js';
import { parseNumber } from '../../../runtime/value/number.js';
import { makeContext, registryCaller, callErrors } from './helpers.js';

const ctx = makeContext;
const call = registryCaller();
const err = callErrors(call);
import { toJS } from '../../../runtime/value/json.js';
import { formatNumber, type RNumber } from '../../../runtime/value/number.js';
import type { RObject } from '../../../runtime/value/collections.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuid.rfc4122', () => {
  it('returns v4 UUIDs, stable per key within a query', () => {
    const c = ctx();
    const def = getBuiltin('uuid.rfc4122')!;
    const a = callBuiltin(def, ['key'], c);
    expect(a).toMatch(V4);
    expect(callBuiltin(def, ['key'], c)).toBe(a);
    expect(callBuiltin(def, ['other'], c)).not.toBe(a);
    expect(callBuiltin(def, ['key'], ctx())).not.toBe(a);
    expect(def.decl.nondeterministic).toBe(true);
  });
});

describe('uuid.parse', () => {
  const obj = (s: string): unknown => {
    const v = call('uuid.parse', s);
    if (v === undefined) return undefined;
    const o = toJS(v) as Record<string, unknown>;
    if ('time' in o) o.time = formatNumber((v as RObject).get('time') as RNumber);
    return o;
  };
  it('parses the accepted forms', () => {
    expect(obj('00000000-0000-4000-8000-000000000000')).toEqual({ variant: 'RFC4122', version: 4 });
    expect(obj('{00000000-0000-4000-8000-000000000000}')).toEqual({ variant: 'RFC4122', version: 4 });
    expect(obj('6bea8ef2d3d33cd184e09bab06a52ece')).toEqual({ variant: 'RFC4122', version: 3 });
    const v2 = { clocksequence: 12800, domain: 'Person', id: 1000, macvariables: 'local:unicast', nodeid: '32-50-96-b3-9f-47', time: '1693566990121469600', variant: 'RFC4122', version: 2 };
    expect(obj('000003e8-48b9-21ee-b200-325096b39f47')).toEqual(v2);
    expect(obj('URN:UUID:000003e8-48b9-21ee-b200-325096b39f47')).toEqual(v2);
  });
  it('is undefined for invalid input', () => {
    expect(call('uuid.parse', 'not-a-uuid')).toBeUndefined();
    expect(call('uuid.parse', '00000000-0000-4000-8000-00000000000g')).toBeUndefined();
    expect(call('uuid.parse', '')).toBeUndefined();
    expect(err('uuid.parse', 123)).toBe('eval_type_error: uuid.parse: operand 1 must be string but got number');
  });
});
