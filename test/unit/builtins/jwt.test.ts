// Unit tests for io.jwt.* (jwt.ts): sign/verify round trips for every algorithm
// family, decode_verify constraints and claims, JWKS key selection, and OPA's
// error messages (including the two conformance cases that need other builtins).
import { describe, it, expect } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { builtins } from '../../../runtime/builtins/jwt.js';
import { toJS } from '../../../runtime/value/index.js';
import { testContext, jsCallerFor, builtinErrors } from './helpers.js';

const NOW_NS = 1_700_000_000_000_000_000n;
const call = jsCallerFor(builtins, testContext({ nowNs: NOW_NS }));
const err = builtinErrors(call);

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ec384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const ed = generateKeyPairSync('ed25519');
const jwk = (k: { export(o: { format: 'jwk' }): object }) => k.export({ format: 'jwk' });
const pem = (k: { export(o: { format: 'pem'; type: 'spki' }): string | Buffer }) => String(k.export({ format: 'pem', type: 'spki' }));

describe('io.jwt sign and verify round trips', () => {
  const payload = { iss: 'regent', sub: 'alice' };
  const cases: [string, object, string, string][] = [
    ['RS256', jwk(rsa.privateKey), pem(rsa.publicKey), 'io.jwt.verify_rs256'],
    ['RS384', jwk(rsa.privateKey), pem(rsa.publicKey), 'io.jwt.verify_rs384'],
    ['RS512', jwk(rsa.privateKey), pem(rsa.publicKey), 'io.jwt.verify_rs512'],
    ['PS256', jwk(rsa.privateKey), pem(rsa.publicKey), 'io.jwt.verify_ps256'],
    ['PS384', jwk(rsa.privateKey), pem(rsa.publicKey), 'io.jwt.verify_ps384'],
    ['PS512', jwk(rsa.privateKey), pem(rsa.publicKey), 'io.jwt.verify_ps512'],
    ['ES256', jwk(ec256.privateKey), pem(ec256.publicKey), 'io.jwt.verify_es256'],
    ['ES384', jwk(ec384.privateKey), pem(ec384.publicKey), 'io.jwt.verify_es384'],
    ['EdDSA', jwk(ed.privateKey), pem(ed.publicKey), 'io.jwt.verify_eddsa'],
  ];
  for (const [alg, priv, pub, verify] of cases) {
    it(alg, () => {
      const token = call('io.jwt.encode_sign', [{ alg }, payload, priv]) as string;
      expect(token.split('.')).toHaveLength(3);
      expect(call(verify, [token, pub])).toBe(true);
      // The public JWK works too, and a tampered token fails.
      expect(call(verify, [token, JSON.stringify(strip(priv))])).toBe(true);
      const [h, , s] = token.split('.');
      const forged = `${h}.${Buffer.from('{"iss":"mallory"}').toString('base64url')}.${s}`;
      expect(call(verify, [forged, pub])).toBe(false);
      const r = toJS(call('io.jwt.decode_verify', [token, { cert: pub, iss: 'regent' }])!) as unknown[];
      expect(r).toEqual([true, { alg }, payload]);
    });
  }
  it('HS256/384/512 with a secret', () => {
    for (const bits of ['256', '384', '512']) {
      const key = { kty: 'oct', k: Buffer.from('s3cret').toString('base64url') };
      const token = call('io.jwt.encode_sign', [{ alg: `HS${bits}`, typ: 'JWT' }, payload, key]) as string;
      expect(call(`io.jwt.verify_hs${bits}`, [token, 's3cret'])).toBe(true);
      expect(call(`io.jwt.verify_hs${bits}`, [token, 'wrong'])).toBe(false);
      expect(toJS(call('io.jwt.decode_verify', [token, { secret: 's3cret' }])!)).toEqual([true, { alg: `HS${bits}`, typ: 'JWT' }, payload]);
    }
  });
});

/** Drop private members of a JWK. */
function strip(j: object): object {
  const { d, p, q, dp, dq, qi, ...rest } = j as Record<string, string>;
  void d, p, q, dp, dq, qi;
  return rest;
}

describe('io.jwt.decode_verify constraints and claims', () => {
  const key = { kty: 'oct', k: Buffer.from('k').toString('base64url') };
  const sign = (p: object) => call('io.jwt.encode_sign', [{ alg: 'HS256' }, p, key]) as string;
  const dv = (t: string, c: object) => toJS(call('io.jwt.decode_verify', [t, c])!) as unknown[];

  it('expiry relative to the query time (conformance rs256-exp-now-explicit-expired)', () => {
    expect(dv(sign({ exp: 3000 }), { secret: 'k' })[0]).toBe(false);
    expect(dv(sign({ exp: 3000 }), { secret: 'k', time: 2999e9 })[0]).toBe(true);
    expect(dv(sign({ exp: 1_800_000_000 }), { secret: 'k' })[0]).toBe(true);
    expect(dv(sign({ nbf: 1_800_000_000 }), { secret: 'k' })[0]).toBe(false);
  });
  it('exp/nbf must be numbers (conformance invalid-exp)', () => {
    const t = call('io.jwt.encode_sign', [{ alg: 'HS256' }, { exp: null }, { kty: 'oct', k: Buffer.from('42').toString('base64url') }]) as string;
    expect(err('io.jwt.decode_verify', [t, { secret: '42' }])).toContain('exp value must be a number');
    const n = call('io.jwt.encode_sign', [{ alg: 'HS256' }, { nbf: 'x' }, key]) as string;
    expect(err('io.jwt.decode_verify', [n, { secret: 'k' }])).toContain('nbf value must be a number');
  });
  it('iss, aud and alg constraints', () => {
    const t = sign({ iss: 'a', aud: ['x', 'y'] });
    expect(dv(t, { secret: 'k', iss: 'a', aud: 'y' })[0]).toBe(true);
    expect(dv(t, { secret: 'k', iss: 'b' })).toEqual([false, {}, {}]);
    expect(dv(t, { secret: 'k' })[0]).toBe(false); // aud present but no aud constraint
    expect(dv(sign({}), { secret: 'k', aud: 'x' })[0]).toBe(false);
    expect(dv(t, { secret: 'k', alg: 'RS256', aud: 'x' })[0]).toBe(false);
  });
  it('constraint errors', () => {
    const t = sign({});
    expect(err('io.jwt.decode_verify', [t, {}])).toBe('eval_builtin_error: io.jwt.decode_verify: no key constraint');
    expect(err('io.jwt.decode_verify', [t, { secret: 'k', cert: pem(rsa.publicKey) }])).toContain('duplicate key constraints');
    expect(err('io.jwt.decode_verify', [t, { secret: 'k', foo: 1 }])).toContain('unknown token validation constraint: foo');
    expect(err('io.jwt.decode_verify', [t, { secret: 1 }])).toContain('secret constraint: must be a string');
    expect(err('io.jwt.decode_verify', [t, { secret: 'k', time: 'now' }])).toContain('token time constraint: must be a number');
    expect(err('io.jwt.decode_verify', [t, { secret: 'k', time: -1 }])).toContain('token time constraint: must not be negative');
    expect(err('io.jwt.decode_verify', [t, 'x'])).toBe('eval_type_error: io.jwt.decode_verify: operand 2 must be object but got string');
  });
  it('selects JWKS keys by kid and alg', () => {
    const pubJwk = { ...strip(jwk(rsa.privateKey)), kid: 'k2', alg: 'RS256' };
    const other = { ...strip(jwk(ec256.privateKey)), kid: 'k1', alg: 'ES256' };
    const token = call('io.jwt.encode_sign', [{ alg: 'RS256', kid: 'k2' }, { a: 1 }, jwk(rsa.privateKey)]) as string;
    const set = JSON.stringify({ keys: [other, pubJwk] });
    expect(call('io.jwt.verify_rs256', [token, set])).toBe(true);
    expect(dv(token, { cert: set })[0]).toBe(true);
    // Only the kid-matching key is tried when the kid is found.
    const wrongKid = JSON.stringify({ keys: [{ ...other, kid: 'k2' }, { ...pubJwk, kid: 'k3' }] });
    expect(call('io.jwt.verify_rs256', [token, wrongKid])).toBe(false);
  });
});

describe('io.jwt errors', () => {
  it('type errors name the operand', () => {
    expect(err('io.jwt.decode', [1])).toBe('eval_type_error: io.jwt.decode: operand 1 must be string but got number');
    expect(err('io.jwt.verify_hs256', ['a.b.c', 1])).toBe('eval_type_error: io.jwt.verify_hs256: operand 2 must be string but got number');
    expect(err('io.jwt.verify_rs256', ['a.b.c', null])).toBe('eval_type_error: io.jwt.verify_rs256: operand 2 must be string but got null');
    expect(err('io.jwt.encode_sign', ['x', {}, {}])).toBe('eval_type_error: io.jwt.encode_sign: operand 1 must be object but got string');
    expect(err('io.jwt.encode_sign_raw', ['{}', '{}', 3])).toBe('eval_type_error: io.jwt.encode_sign_raw: operand 3 must be string but got number');
  });
  it('token structure and key errors', () => {
    expect(err('io.jwt.decode', ['a.b'])).toContain('encoded JWT must have 3 sections, found 2');
    expect(err('io.jwt.decode', ['eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.AA'])).toBe(
      "eval_builtin_error: io.jwt.decode: invalid JSON: invalid character 'o' in literal null (expecting 'u')",
    );
    expect(err('io.jwt.verify_rs256', ['a.b.c', '-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n'])).toContain(
      'failed to extract a Key from the PEM certificate',
    );
    expect(err('io.jwt.verify_rs256', ['a.b.c', '{not json'])).toContain('failed to parse a JWK key (set)');
    expect(err('io.jwt.encode_sign_raw', ['{"alg":"HS256"}', 'not json', JSON.stringify({ kty: 'oct', k: 'AA' })])).toContain(
      'type is JWT but payload is not JSON',
    );
  });
  it('decode exposes the signature as hex and unwraps nested tokens', () => {
    const inner = call('io.jwt.encode_sign', [{ alg: 'HS256' }, { x: 1 }, { kty: 'oct', k: 'AA' }]) as string;
    const r = toJS(call('io.jwt.decode', [inner])!) as unknown[];
    expect(r[0]).toEqual({ alg: 'HS256' });
    expect(r[1]).toEqual({ x: 1 });
    expect(r[2]).toBe(Buffer.from(inner.split('.')[2]!, 'base64url').toString('hex'));
  });
});
