// Unit tests for crypto.* (crypto.ts): digests, HMACs, certificate / CSR / key
// parsing and chain verification. Certificates and keys at the bottom come from
// OPA's cryptox509* conformance folders; the chain and CSR were made with openssl
// (ECDSA P-256, valid for 100 years).
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/crypto.js';
import { BuiltinError } from '../../../runtime/builtins/errors.js';
import type { BuiltinContext } from '../../../runtime/builtins/types.js';
import { fromJS, toJS, type Value } from '../../../runtime/value/index.js';

const ctx: BuiltinContext = { strict: true, cache: new Map(), nowNs: 0n, print() {}, runtime: null, extras: {} };
const call = (name: string, args: unknown[]): Value | undefined =>
  builtins.find((b) => b.decl.name === name)!.impl(args.map((a) => fromJS(a)), ctx);
const js = (name: string, args: unknown[]): any => toJS(call(name, args)!);
function err(name: string, args: unknown[]): string {
  try {
    call(name, args);
  } catch (e) {
    if (e instanceof BuiltinError) return `${e.code}: ${name}: ${e.message}`;
    throw e;
  }
  throw new Error('no error');
}

describe('digests and HMACs', () => {
  it('hash strings as UTF-8 and return hex', () => {
    expect(call('crypto.md5', ['hello'])).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(call('crypto.sha1', ['hello'])).toBe('aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d');
    expect(call('crypto.sha256', [''])).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
  it('HMACs (conformance cryptohmacsha256 / cryptohmacsha512)', () => {
    expect(call('crypto.hmac.sha256', ['foo', 'bar'])).toBe('147933218aaabc0b8b10a2b3a5c34684c8d94341bcf10a4736dc7270f7741851');
    expect(call('crypto.hmac.sha256', ['åäöçß\u{1F972}♙Ω', '秘密の'])).toBe('eb90daeb76d4b2571fbdaf94bbb240809faa8fed93ec0c260dd38c3fdf8d963a');
    expect(call('crypto.hmac.sha512', ['foo', 'bar'])).toBe(
      '24257d7210582a65c731ec55159c8184cc24c02489453e58587f71f44c23a2d61b4b72154a89d17b2d49448a8452ea066f4fc56a2bcead45c088572ffccdb3d8',
    );
    expect(call('crypto.hmac.sha512', ['åäöçß\u{1F972}♙Ω', '秘密の'])).toBe(
      '192f5afded233d6e21427aa26ed267ac118cfa2971013d91cbed530c0b208d78138b83dfe1d6cc3553d7bd518f22a481402c723028e1279d1ffbe8f11ea6b125',
    );
    expect(call('crypto.hmac.md5', ['foo', 'bar'])).toBe('31b6db9e5eb4addb42f1a6ca07367adc');
    expect(call('crypto.hmac.sha1', ['foo', 'bar'])).toBe('85d155c55ed286a300bd1cf124de08d87e914f3a');
  });
  it('crypto.hmac.equal (conformance cryptohmacequal)', () => {
    expect(call('crypto.hmac.equal', ['31b6db9e5eb4addb42f1a6ca07367adc', '31b6db9e5eb4addb42f1a6ca07367adc'])).toBe(true);
    expect(call('crypto.hmac.equal', ['31b6db9e5eb4addb42f1a6ca07367adc', '31b6db9e5eb4addb'])).toBe(false);
  });
  it('type errors', () => {
    expect(err('crypto.sha256', [1])).toBe('eval_type_error: crypto.sha256: operand 1 must be string but got number');
    expect(err('crypto.hmac.sha256', ['x', null])).toBe('eval_type_error: crypto.hmac.sha256: operand 2 must be string but got null');
    expect(err('crypto.hmac.equal', [[], 'x'])).toBe('eval_type_error: crypto.hmac.equal: operand 1 must be string but got array');
  });
});

describe('crypto.x509.parse_certificates (conformance cryptox509parsecertificates)', () => {
  const cn = (input: string) => (js('crypto.x509.parse_certificates', [input]) as any[]).map((c) => c.Subject.CommonName);
  it('PEM, base64 PEM chain', () => {
    expect(cn(FX.certs['PEM, single cert, string'])).toEqual(['openpolicyagent.org']);
    expect(cn(FX.certs['PEM, chain, b64'])).toEqual(['openpolicyagent.org', "Let's Encrypt Authority X3", 'DST Root CA X3']);
  });
  it('base64 DER and Go field shapes', () => {
    const pemText = FX.certs['PEM, single cert, string'];
    const der = Buffer.from(pemText.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64').toString('base64');
    const [c] = js('crypto.x509.parse_certificates', [der]);
    expect(c.Subject.Names).toEqual([{ Type: [2, 5, 4, 3], Value: 'openpolicyagent.org' }]);
    expect(c.Issuer.Organization).toEqual(["Let's Encrypt"]);
    expect(c.Issuer.Country).toEqual(['US']);
    expect(c.DNSNames).toEqual(['openpolicyagent.org', 'www.openpolicyagent.org']);
    expect(c.NotBefore).toBe('2020-07-10T16:00:30Z');
    expect(c.NotAfter).toBe('2020-10-08T16:00:30Z');
    expect(c.Version).toBe(3);
    expect(c.SignatureAlgorithm).toBe(4);
    expect(c.PublicKeyAlgorithm).toBe(1);
    expect(c.PublicKey.E).toBe(65537);
    expect(c.KeyUsage).toBe(5);
    expect(c.ExtKeyUsage).toEqual([1, 2]);
    expect(c.BasicConstraintsValid).toBe(true);
    expect(c.IsCA).toBe(false);
    expect(c.OCSPServer).toEqual(['http://ocsp.int-x3.letsencrypt.org']);
    expect(c.IssuingCertificateURL).toEqual(['http://cert.int-x3.letsencrypt.org/']);
    expect(c.URIStrings).toBeNull();
    expect(c.Raw).toBe(der);
  });
  it('URIStrings', () => {
    expect(js('crypto.x509.parse_certificates', [FX.certs.uri_strings])[0].URIStrings).toEqual(['spiffe://example.com/opa']);
    expect(js('crypto.x509.parse_certificates', [FX.certs.uri_strings_no_uris])[0].URIStrings).toBeNull();
  });
  it('errors', () => {
    expect(err('crypto.x509.parse_certificates', ['YmFkc3RyaW5n'])).toBe('eval_builtin_error: crypto.x509.parse_certificates: x509: malformed certificate');
    expect(err('crypto.x509.parse_certificates', ['not base64!'])).toBe(
      'eval_builtin_error: crypto.x509.parse_certificates: illegal base64 data at input byte 3',
    );
    expect(err('crypto.x509.parse_certificates', ['-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n'])).toContain(
      "PEM block type is 'PUBLIC KEY', expected CERTIFICATE",
    );
  });
});

describe('crypto.x509.parse_and_verify_certificates', () => {
  it('verifies root → intermediate → leaf and returns the chain leaf first', () => {
    const { root, inter, leaf } = PKI;
    const [ok, chain] = js('crypto.x509.parse_and_verify_certificates', [[root, inter, leaf].join('\n')]);
    expect(ok).toBe(true);
    expect(chain.map((c: any) => c.Subject.CommonName)).toEqual(['leaf.example.com', 'Intermediate', 'Root']);
    expect(js('crypto.x509.parse_and_verify_certificates', [[root, leaf].join('\n')])).toEqual([false, []]);
    expect(js('crypto.x509.parse_and_verify_certificates', [root])).toEqual([false, []]);
    expect(js('crypto.x509.parse_and_verify_certificates', ['garbage'])).toEqual([false, []]);
    const all = [root, inter, leaf].join('\n');
    const withOpts = (o: object) => js('crypto.x509.parse_and_verify_certificates_with_options', [all, o])[0];
    expect(withOpts({ DNSName: 'leaf.example.com' })).toBe(true);
    expect(withOpts({ DNSName: 'other.example.com' })).toBe(false);
    expect(withOpts({ CurrentTime: 1_500_000_000_000_000_000 })).toBe(false);
    expect(withOpts({ KeyUsages: ['KeyUsageServerAuth'] })).toBe(true);
    expect(withOpts({ KeyUsages: ['KeyUsageClientAuth'] })).toBe(false);
    expect(withOpts({ KeyUsages: ['KeyUsageAny'] })).toBe(true);
    expect(err('crypto.x509.parse_and_verify_certificates_with_options', [all, { Foo: 1 }])).toContain('invalid key option');
    expect(err('crypto.x509.parse_and_verify_certificates_with_options', [all, { KeyUsages: ['Nope'] }])).toContain(
      "invalid entries for 'KeyUsages' found: [Nope]",
    );
  });
});

describe('keys and CSRs', () => {
  it('crypto.x509.parse_keypair (conformance cryptox509parsekeypair)', () => {
    const r = js('crypto.x509.parse_keypair', [FX.kpCert, FX.kpKey]);
    expect(r.Certificate[0]).toBe(FX.kpWant);
    expect(r.Leaf.Subject.CommonName).toBe('example.com');
    expect(typeof r.PrivateKey.N).toBe('number');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(js('crypto.x509.parse_keypair', [b64(FX.kpCert), b64(FX.kpKey)]).Certificate[0]).toBe(FX.kpWant);
    expect(err('crypto.x509.parse_keypair', [FX.kpCert, FX.rsaPem])).toContain('tls: private key does not match public key');
    expect(err('crypto.x509.parse_keypair', [FX.kpCert, 1])).toBe('eval_type_error: crypto.x509.parse_keypair: operand 1 must be string but got number');
  });
  it('crypto.x509.parse_rsa_private_key (conformance cryptox509parsersaprivatekey)', () => {
    expect(js('crypto.x509.parse_rsa_private_key', [FX.rsaPem])).toEqual(FX.rsaJwk);
    expect(js('crypto.x509.parse_rsa_private_key', [Buffer.from(FX.rsaPem).toString('base64')])).toEqual(FX.rsaJwk);
    expect(err('crypto.x509.parse_rsa_private_key', ['invalid'])).toBe(
      'eval_builtin_error: crypto.x509.parse_rsa_private_key: illegal base64 data at input byte 4',
    );
    expect(err('crypto.x509.parse_rsa_private_key', [''])).toContain('input PEM data was empty');
  });
  it('crypto.parse_private_keys', () => {
    const keys = js('crypto.parse_private_keys', [FX.rsaPem + '\n' + FX.kpKey]);
    expect(keys).toHaveLength(2);
    expect(keys[0].E).toBe(65537);
    expect(keys[0].Primes).toHaveLength(2);
    expect(call('crypto.parse_private_keys', [''])).toBeNull();
    expect(js('crypto.parse_private_keys', ['no keys here'])).toEqual([]);
  });
  it('crypto.x509.parse_certificate_request (conformance cryptox509parsecertificaterequest)', () => {
    expect(err('crypto.x509.parse_certificate_request', ['foobar'])).toContain('illegal base64');
    const r = js('crypto.x509.parse_certificate_request', [PKI.csr]);
    expect(r.Subject.CommonName).toBe('leaf.example.com');
    expect(r.DNSNames).toEqual(['csr.example.com']);
    expect(r.SignatureAlgorithm).toBe(10);
    expect(r.PublicKeyAlgorithm).toBe(3);
    expect(js('crypto.x509.parse_certificate_request', [Buffer.from(PKI.csr).toString('base64')]).Subject.CommonName).toBe('leaf.example.com');
    expect(err('crypto.x509.parse_certificate_request', [Buffer.from(PKI.root).toString('base64')])).toContain(
      'invalid PEM-encoded certificate signing request',
    );
  });
});


const PKI = {
 "root": "-----BEGIN CERTIFICATE-----\nMIIBhDCCASqgAwIBAgIBATAKBggqhkjOPQQDAjAgMQ0wCwYDVQQDDARSb290MQ8w\nDQYDVQQKDAZSZWdlbnQwIBcNMjYxMTIyMDk1MTU5WhgPMjEyNjEwMjkwOTUxNTla\nMCAxDTALBgNVBAMMBFJvb3QxDzANBgNVBAoMBlJlZ2VudDBZMBMGByqGSM49AgEG\nCCqGSM49AwEHA0IABORAoTdwMYKj0kWrp4NisqNSrjNwpgvVxwiDZfPy8P/ksg6z\n+T7sP/At4QOUZ0xmnCcG/paK4Keh88HpKvNQmXyjUzBRMB0GA1UdDgQWBBTJ9ekr\n8T19YUGujvcWCw4a20aNnzAfBgNVHSMEGDAWgBTJ9ekr8T19YUGujvcWCw4a20aN\nnzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIHJRexQAcJo4BxOo\nb4OgRfLnZdDO577jbT6FmAMF/XRWAiEAzFqtvP9I4KmJX6URQf7oMdAQZsdGIctp\nt2YFgsuc688=\n-----END CERTIFICATE-----\n",
 "inter": "-----BEGIN CERTIFICATE-----\nMIIBizCCATGgAwIBAgIBAjAKBggqhkjOPQQDAjAgMQ0wCwYDVQQDDARSb290MQ8w\nDQYDVQQKDAZSZWdlbnQwIBcNMjYxMTIyMDk1MjAwWhgPMjEyNjEwMjkwOTUyMDBa\nMBcxFTATBgNVBAMMDEludGVybWVkaWF0ZTBZMBMGByqGSM49AgEGCCqGSM49AwEH\nA0IABInwBMk3ftk1X8BcMiljHwTDv8Qi8KtC1c8a242BVV18wbSIGrU9WgkND+iF\nuY8FDHWxu+sZ60TPOI+j2qBJxT+jYzBhMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0P\nAQH/BAQDAgEGMB0GA1UdDgQWBBST/HEiBihuv3RoXpsCwOYu5VKWFDAfBgNVHSME\nGDAWgBTJ9ekr8T19YUGujvcWCw4a20aNnzAKBggqhkjOPQQDAgNIADBFAiBi1GVh\n4Aqe4vOR5ljd0AcpZCUYxw5es99OG6dm0+Y8ZAIhAJgygePyyKcFn1nBEOu6k2px\nvx9AHZA9vkqXyWRh3tPq\n-----END CERTIFICATE-----\n",
 "leaf": "-----BEGIN CERTIFICATE-----\nMIIBzjCCAXWgAwIBAgIBAzAKBggqhkjOPQQDAjAXMRUwEwYDVQQDDAxJbnRlcm1l\nZGlhdGUwIBcNMjYxMTIyMDk1MjAwWhgPMjEyNjEwMjkwOTUyMDBaMBsxGTAXBgNV\nBAMMEGxlYWYuZXhhbXBsZS5jb20wWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATb\nhH6CQo8WmhtoZVZqcuMP2+lE0ZZ607Eyc6vQOeJkfq8bpjtY3cTB1UPWrqQY0sVV\niV1jZSGvZvjMi5TjDOQmo4GrMIGoMAkGA1UdEwQCMAAwDgYDVR0PAQH/BAQDAgeA\nMBMGA1UdJQQMMAoGCCsGAQUFBwMBMDYGA1UdEQQvMC2CEGxlYWYuZXhhbXBsZS5j\nb22GGXNwaWZmZTovL2V4YW1wbGUuY29tL2xlYWYwHQYDVR0OBBYEFAQbGRsEpa6a\n6uMjiffaujuyINaOMB8GA1UdIwQYMBaAFJP8cSIGKG6/dGhemwLA5i7lUpYUMAoG\nCCqGSM49BAMCA0cAMEQCIFeYS0kCOUs3Imo08NlbkloVe51v5eXyrWIhKH+Y6e4A\nAiB0PHpEbYNvyDsfBk4W8IOgnx8Bakr0GJm8ComEf9gKAA==\n-----END CERTIFICATE-----\n",
 "csr": "-----BEGIN CERTIFICATE REQUEST-----\nMIIBAzCBqgIBADAbMRkwFwYDVQQDDBBsZWFmLmV4YW1wbGUuY29tMFkwEwYHKoZI\nzj0CAQYIKoZIzj0DAQcDQgAE24R+gkKPFpobaGVWanLjD9vpRNGWetOxMnOr0Dni\nZH6vG6Y7WN3EwdVD1q6kGNLFVYldY2Uhr2b4zIuU4wzkJqAtMCsGCSqGSIb3DQEJ\nDjEeMBwwGgYDVR0RBBMwEYIPY3NyLmV4YW1wbGUuY29tMAoGCCqGSM49BAMCA0gA\nMEUCIFfTprK8ZmgCIAHbbsNjw0iLvFVAj+wbbsAzpyqTyAgUAiEA0zmj53Wlk36z\ni3ZG794Gy9TKbpbgdGhvSt5pU+23ZEk=\n-----END CERTIFICATE REQUEST-----\n"
};

