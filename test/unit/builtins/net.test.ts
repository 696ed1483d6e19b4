// Unit tests for net.* (net.ts), transcribed from OPA's netcidrcontains,
// netcidrcontainsmatches, netcidrexpand, netcidrintersects, netcidrmerge and
// netlookupipaddr conformance folders, plus Go-parsing and range edge cases.
import { describe, it, expect } from 'vitest';
import { builtins, MAX_EXPAND } from '../../../runtime/builtins/net.js';
import { RObject, RSet, type Value } from '../../../runtime/value/index.js';
import { makeContext, callerFor, builtinErrors } from './helpers.js';

const mkctx = makeContext;
let ctx = mkctx();
const call = callerFor(builtins, () => ctx);
const err = builtinErrors(call);
const members = (v: Value | undefined): Value[] => (v as RSet).values();

describe('net.cidr_contains', () => {
  it('contains subnets and IPs (conformance)', () => {
    expect(call('net.cidr_contains', ['10.0.0.0/8', '10.1.0.0/24'])).toBe(true);
    expect(call('net.cidr_contains', ['2001:4860:4860::8888/32', '2001:4860:4860:1234::8888/40'])).toBe(true);
    expect(call('net.cidr_contains', ['2001:4860:4860::8888/32', '2001:4860:4860:1234:5678:1234:5678:8888/128'])).toBe(true);
    expect(call('net.cidr_contains', ['10.0.0.0/8', '10.1.2.3'])).toBe(true);
  });
  it('edges: /0, /32, partial overlap, family mismatch', () => {
    expect(call('net.cidr_contains', ['0.0.0.0/0', '255.255.255.255'])).toBe(true);
    expect(call('net.cidr_contains', ['::/0', '2001:db8::1'])).toBe(true);
    expect(call('net.cidr_contains', ['::/0', '1.2.3.4'])).toBe(false);
    expect(call('net.cidr_contains', ['10.0.0.1/32', '10.0.0.1'])).toBe(true);
    expect(call('net.cidr_contains', ['10.0.0.0/24', '10.0.0.0/23'])).toBe(false);
    expect(call('net.cidr_contains', ['10.0.0.0/8', '::ffff:10.1.2.3'])).toBe(true);
    expect(call('net.cidr_overlap', ['192.168.0.0/16', '192.168.1.1'])).toBe(true);
  });
  it('malformed input errors with OPA messages', () => {
    expect(err('net.cidr_contains', ['not-a-cidr', '192.168.1.67'])).toBe(
      'eval_builtin_error: net.cidr_contains: invalid CIDR address: not-a-cidr',
    );
    expect(err('net.cidr_contains', ['192.168.1.0/28', 'not-a-cidr'])).toBe(
      'eval_builtin_error: net.cidr_contains: not a valid textual representation of an IP address or CIDR: not-a-cidr',
    );
    expect(err('net.cidr_contains', ['010.0.0.0/8', '10.0.0.1'])).toBe(
      'eval_builtin_error: net.cidr_contains: invalid CIDR address: 010.0.0.0/8',
    );
    expect(err('net.cidr_contains', ['10.0.0.0/8', 1])).toBe('eval_type_error: net.cidr_contains: operand 1 must be string but got number');
  });
});

describe('net.cidr_intersects', () => {
  it('conformance cases', () => {
    expect(call('net.cidr_intersects', ['fd1e:5bfe:8af3:9ddc::/64', 'fd1e:5bfe:8af3:9ddc:1111::/72'])).toBe(true);
    expect(call('net.cidr_intersects', ['fd1e:5bfe:8af3:9ddc::/64', '2001:4860:4860::8888/32'])).toBe(false);
    expect(err('net.cidr_intersects', ['192.168.1.0/28', 'not-a-cidr'])).toBe(
      'eval_builtin_error: net.cidr_intersects: invalid CIDR address: not-a-cidr',
    );
  });
  it('IPv4', () => {
    expect(call('net.cidr_intersects', ['192.168.0.0/16', '192.168.1.0/24'])).toBe(true);
    expect(call('net.cidr_intersects', ['192.168.1.0/24', '192.168.0.0/16'])).toBe(true);
    expect(call('net.cidr_intersects', ['192.168.1.0/25', '192.168.1.128/25'])).toBe(false);
  });
});

describe('net.cidr_contains_matches', () => {
  it('conformance cases', () => {
    expect(members(call('net.cidr_contains_matches', [['1.1.2.0/24', '1.1.1.0/24'], ['1.1.1.1', '1.1.2.1']]))).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(
      members(call('net.cidr_contains_matches', [[['1.1.2.0/24', 1], '1.1.1.0/24'], ['1.1.1.1', '1.1.2.1']])),
    ).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(
      members(call('net.cidr_contains_matches', [RSet.of(['1.1.1.0/24', '1.1.2.0/24']), RSet.of(['1.1.1.1', '1.1.2.1'])])),
    ).toEqual([
      ['1.1.1.0/24', '1.1.1.1'],
      ['1.1.2.0/24', '1.1.2.1'],
    ]);
    expect(
      err('net.cidr_contains_matches', [
        RSet.of([['1.1.1.0/24', 'bar'], ['1.1.2.0/24', 'foo']]),
        RSet.of([1, ['1.1.2.1', 'qux']]),
      ]),
    ).toBe('eval_builtin_error: net.cidr_contains_matches: operand 2: element must be string or non-empty array');
  });
  it('strings and objects', () => {
    expect(members(call('net.cidr_contains_matches', ['10.0.0.0/8', '10.1.1.1']))).toEqual([['10.0.0.0/8', '10.1.1.1']]);
    const obj = RObject.fromEntries([['a', '10.0.0.1'], ['b', ['192.168.0.1', 'x']]]);
    expect(members(call('net.cidr_contains_matches', ['10.0.0.0/8', obj]))).toEqual([['10.0.0.0/8', 'a']]);
    expect(members(call('net.cidr_contains_matches', [5, '10.0.0.1']))).toEqual([]);
    expect(err('net.cidr_contains_matches', [[[]], '10.0.0.1'])).toBe(
      'eval_builtin_error: net.cidr_contains_matches: operand 1: element must be string or non-empty array',
    );
  });
});

describe('net.cidr_expand', () => {
  it('expands including network and broadcast (conformance)', () => {
    expect(members(call('net.cidr_expand', ['192.168.1.1/30']))).toEqual(['192.168.1.0', '192.168.1.1', '192.168.1.2', '192.168.1.3']);
    expect(err('net.cidr_expand', ['192.168.1.1/33'])).toBe('eval_builtin_error: net.cidr_expand: invalid CIDR address: 192.168.1.1/33');
  });
  it('IPv6, /32 and /128', () => {
    expect(members(call('net.cidr_expand', ['fe80::1/127']))).toEqual(['fe80::', 'fe80::1']);
    expect(members(call('net.cidr_expand', ['10.0.0.7/32']))).toEqual(['10.0.0.7']);
    expect(members(call('net.cidr_expand', ['::1/128']))).toEqual(['::1']);
    expect(members(call('net.cidr_expand', ['255.255.255.254/31']))).toEqual(['255.255.255.254', '255.255.255.255']);
    expect((call('net.cidr_expand', ['10.0.0.0/16']) as RSet).size).toBe(65536);
  });
  it('refuses huge expansions', () => {
    expect(err('net.cidr_expand', ['0.0.0.0/0'])).toBe(
      `eval_builtin_error: net.cidr_expand: CIDR too large to expand: 0.0.0.0/0 has 4294967296 addresses (limit ${MAX_EXPAND})`,
    );
    expect(err('net.cidr_expand', ['2001:db8::/64'])).toMatch(/CIDR too large to expand: 2001:db8::\/64 has 18446744073709552000/);
  });
});

describe('net.cidr_merge', () => {
  const merge = (xs: Value): Value[] => members(call('net.cidr_merge', [xs]));
  it('IPv6 with and without prefix (conformance)', () => {
    expect(merge(['2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128'])).toEqual(['2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128']);
    expect(merge(['2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128', '2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128'])).toEqual([
      '2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128',
    ]);
    expect(merge(['2601:600:8a80:207e:a57d:7567:e2c9:e7b3/64', '2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128'])).toEqual([
      '2601:600:8a80:207e::/64',
    ]);
    expect(err('net.cidr_merge', [['2601:600:8a80:207e:a57d:7567:e2c9:e7b3']])).toBe(
      'eval_builtin_error: net.cidr_merge: IPv6 invalid: needs prefix length',
    );
  });
  it('merges adjacent and contained IPv4 networks', () => {
    expect(merge(['192.0.128.0/24', '192.0.129.0/24'])).toEqual(['192.0.128.0/23']);
    expect(merge(RSet.of(['192.0.128.0/24', '192.0.130.0/24']))).toEqual(['192.0.128.0/24', '192.0.130.0/24']);
    expect(merge(['0.0.0.0/0', '10.0.0.0/8'])).toEqual(['0.0.0.0/0']);
    expect(merge(['10.0.0.0/8', '11.0.0.0/8', '12.0.0.0/8'])).toEqual(['10.0.0.0/7', '12.0.0.0/8']);
    expect(merge(['192.0.2.1/32', '192.0.2.2/32', '192.0.2.3/32', '192.0.2.4/32'])).toEqual([
      '192.0.2.1/32',
      '192.0.2.2/31',
      '192.0.2.4/32',
    ]);
    expect(merge(['2001:db8::/33', '2001:db8:8000::/33'])).toEqual(['2001:db8::/32']);
    expect(merge([])).toEqual([]);
  });
  it('gives bare IPv4 addresses their classful mask, as Go does', () => {
    expect(merge(['192.168.1.1'])).toEqual(['192.168.1.1/24']);
    expect(merge(['10.1.2.3', '10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
  });
  it('errors', () => {
    expect(err('net.cidr_merge', [[1]])).toBe('eval_builtin_error: net.cidr_merge: element must be string');
    expect(err('net.cidr_merge', ['10.0.0.0/8'])).toBe('eval_builtin_error: net.cidr_merge: operand must be an array');
    expect(err('net.cidr_merge', [['10.0.0.0/99']])).toBe('eval_builtin_error: net.cidr_merge: invalid CIDR address: 10.0.0.0/99');
  });
});

describe('net.cidr_is_valid', () => {
  it('validates with Go rules', () => {
    expect(call('net.cidr_is_valid', ['10.0.0.0/8'])).toBe(true);
    expect(call('net.cidr_is_valid', ['::/0'])).toBe(true);
    expect(call('net.cidr_is_valid', ['::ffff:1.2.3.4/120'])).toBe(true);
    expect(call('net.cidr_is_valid', ['10.0.0.0'])).toBe(false);
    expect(call('net.cidr_is_valid', ['010.0.0.0/8'])).toBe(false);
    expect(call('net.cidr_is_valid', ['10.0.0.0/33'])).toBe(false);
    expect(call('net.cidr_is_valid', ['fe80::1%eth0/64'])).toBe(false);
    expect(call('net.cidr_is_valid', ['1:2:3:4:5:6:7:8:9/64'])).toBe(false);
    expect(call('net.cidr_is_valid', ['1::2::3/64'])).toBe(false);
    expect(call('net.cidr_is_valid', [42])).toBe(false);
  });
});

describe('net.lookup_ip_addr', () => {
  it('returns literals as they are (conformance)', () => {
    ctx = mkctx();
    expect(members(call('net.lookup_ip_addr', ['10.0.0.0']))).toEqual(['10.0.0.0']);
    expect(members(call('net.lookup_ip_addr', ['::']))).toEqual(['::']);
    expect(members(call('net.lookup_ip_addr', ['0:0::1']))).toEqual(['::1']);
  });
  it('resolves localhost and caches per query', () => {
    ctx = mkctx();
    const got = members(call('net.lookup_ip_addr', ['localhost']));
    expect([['127.0.0.1'], ['127.0.0.1', '::1'], ['::1']]).toContainEqual(got);
    expect(ctx.cache.size).toBe(1);
    expect(members(call('net.lookup_ip_addr', ['localhost']))).toEqual(got);
  });
  it('fails on unknown names', () => {
    ctx = mkctx();
    expect(err('net.lookup_ip_addr', ['nonexistent.invalid'])).toBe(
      'eval_builtin_error: net.lookup_ip_addr: lookup nonexistent.invalid: no such host',
    );
    expect(err('net.lookup_ip_addr', [''])).toBe('eval_builtin_error: net.lookup_ip_addr: lookup : no such host');
    expect(err('net.lookup_ip_addr', [1])).toBe('eval_type_error: net.lookup_ip_addr: operand 1 must be string but got number');
  });
});
