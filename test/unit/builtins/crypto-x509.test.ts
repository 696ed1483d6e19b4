// Go's x509 readings in the crypto.x509.* builtins (runtime/x509, shared with
// the server's client_certificates): extension fields, what OPA adds per builtin
// (URIStrings), CSR attributes, Go's time forms and the certificates Go's parser
// rejects. Certificates are made at test time with the openssl CLI.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtins } from '../../../runtime/builtins/crypto.js';
import { toJS, x509 } from '../../../runtime/index.js';
import { goTime } from '../../../runtime/x509/formats.js';
import { Pki, type Issued } from '../../server/certs.js';
import { builtinErrors, jsCallerFor } from './helpers.js';

const call = jsCallerFor(builtins);
const js = (name: string, args: unknown[]): any => toJS(call(name, args)!);
const err = builtinErrors(call);

let pki: Pki;
let ca: Issued;
let full: Issued;

const openssl = (args: string[]): void => {
  execFileSync('openssl', args, { cwd: pki.dir, stdio: ['ignore', 'ignore', 'pipe'] });
};

beforeAll(() => {
  pki = new Pki();
  ca = pki.ca('/CN=X509 Test CA');
  full = pki.issue(ca, '/C=GB/O=Org/OU=a/OU=b/CN=full/emailAddress=x@y.z', {
    rsa: true,
    extensions: [
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth,1.2.3.4.5',
      'subjectAltName=DNS:full.example,IP:::ffff:1.2.3.4,IP:2001:db8::1,URI:https://u@h.example:8443/p%2Fq?x=1,email:f@example.org',
      'nameConstraints=critical,permitted;DNS:.example.com,permitted;IP:10.0.0.0/255.0.0.0,excluded;email:bad.example',
      'certificatePolicies=1.2.3.4,1.2.99999999999999999999.7',
      'policyConstraints=requireExplicitPolicy:0',
      'inhibitAnyPolicy=2',
      'crlDistributionPoints=URI:http://crl.example/a.crl',
      'authorityInfoAccess=OCSP;URI:http://ocsp.example,caIssuers;URI:http://ca.example/ca.crt',
    ],
  });
});
afterAll(() => pki?.cleanup());

describe('certificates as Go parses them', () => {
  it('fills the extension fields of x509.Certificate', () => {
    const [c] = js('crypto.x509.parse_certificates', [full.certPem]);
    expect(Object.keys(c)).toHaveLength(53); // Go 1.24's 52 fields and OPA's URIStrings
    expect(c).toMatchObject({ KeyUsage: 5, ExtKeyUsage: [1], UnknownExtKeyUsage: [[1, 2, 3, 4, 5]], MaxPathLen: 0, BasicConstraintsValid: false });
    expect(c.IPAddresses).toEqual(['1.2.3.4', '2001:db8::1']);
    expect(c.URIs[0]).toMatchObject({ Scheme: 'https', User: {}, Host: 'h.example:8443', Path: '/p/q', RawPath: '/p%2Fq', RawQuery: 'x=1' });
    expect(c.URIStrings).toEqual(['https://u@h.example:8443/p%2Fq?x=1']);
    expect(c).toMatchObject({ PermittedDNSDomainsCritical: true, PermittedDNSDomains: ['.example.com'], ExcludedEmailAddresses: ['bad.example'] });
    expect(c.PermittedIPRanges).toEqual([{ IP: '10.0.0.0', Mask: '/wAAAA==' }]);
    expect(c.Policies).toEqual(['1.2.3.4', '1.2.99999999999999999999.7']);
    expect(c.PolicyIdentifiers).toEqual([[1, 2, 3, 4]]); // arcs beyond 31 bits do not fit asn1.ObjectIdentifier
    expect(c).toMatchObject({ RequireExplicitPolicy: 0, RequireExplicitPolicyZero: true, InhibitAnyPolicy: 2, InhibitAnyPolicyZero: false });
    expect(c).toMatchObject({ CRLDistributionPoints: ['http://crl.example/a.crl'], OCSPServer: ['http://ocsp.example'], IssuingCertificateURL: ['http://ca.example/ca.crt'] });
    expect(c.Subject.OrganizationalUnit).toEqual(['a', 'b']);
    expect(c.Subject.Names.map((n: any) => n.Type.join('.'))).toEqual(['2.5.4.6', '2.5.4.10', '2.5.4.11', '2.5.4.11', '2.5.4.3', '1.2.840.113549.1.9.1']);
    expect(x509.goCertificate(full.der).identity).toBe('CN=full,OU=a+OU=b,O=Org,C=GB');
  });

  it('adds URIStrings where OPA does: parse_certificates and parse_and_verify_certificates only', () => {
    const chain = [ca.certPem, full.certPem].join('');
    const [ok, verified] = js('crypto.x509.parse_and_verify_certificates', [chain]);
    expect(ok).toBe(true);
    expect(verified[0].URIStrings).toEqual(['https://u@h.example:8443/p%2Fq?x=1']);
    const [ok2, plain] = js('crypto.x509.parse_and_verify_certificates_with_options', [chain, { KeyUsages: ['KeyUsageServerAuth'] }]);
    expect(ok2).toBe(true);
    expect(plain[0]).not.toHaveProperty('URIStrings');
    expect(Object.keys(plain[0])).toHaveLength(52);
    const pair = js('crypto.x509.parse_keypair', [full.certPem, full.keyPem]);
    expect(pair.Leaf).not.toHaveProperty('URIStrings');
    expect(pair.Leaf.Raw).toBe(full.der.toString('base64'));
  });

  it("rejects what Go's parser rejects, with Go's texts", () => {
    const negative = pki.issue(ca, '/CN=neg', { serial: '-5' });
    expect(err('crypto.x509.parse_certificates', [negative.certPem])).toBe('eval_builtin_error: crypto.x509.parse_certificates: x509: negative serial number');
    expect(js('crypto.x509.parse_and_verify_certificates', [[ca.certPem, negative.certPem].join('')])).toEqual([false, []]);
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:secp256k1', '-nodes', '-keyout', 'k1.key', '-out', 'k1.pem', '-subj', '/CN=k1', '-days', '1']);
    expect(err('crypto.x509.parse_certificates', [readFileSync(pki.path('k1.pem'), 'utf8')])).toContain('x509: unsupported elliptic curve');
    expect(() => x509.goCertificate(negative.der)).toThrow('x509: negative serial number');
  });
});

describe('certificate requests', () => {
  it('fills SANs, Extensions and the raw Attributes, and nothing of a certificate', () => {
    openssl([
      ...['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'csr.key', '-out', 'csr.pem', '-subj', '/CN=csr/O=Org'],
      ...['-addext', 'subjectAltName=DNS:csr.example,IP:1.2.3.4,URI:spiffe://x/y', '-addext', 'keyUsage=critical,digitalSignature'],
    ]);
    const r = js('crypto.x509.parse_certificate_request', [readFileSync(pki.path('csr.pem'), 'utf8')]);
    expect(Object.keys(r).sort()).toEqual(
      ['Attributes', 'DNSNames', 'EmailAddresses', 'Extensions', 'ExtraExtensions', 'IPAddresses', 'PublicKey', 'PublicKeyAlgorithm', 'Raw', 'RawSubject']
        .concat(['RawSubjectPublicKeyInfo', 'RawTBSCertificateRequest', 'Signature', 'SignatureAlgorithm', 'Subject', 'URIs', 'Version'])
        .sort(),
    );
    expect(r).toMatchObject({ Version: 0, DNSNames: ['csr.example'], IPAddresses: ['1.2.3.4'], EmailAddresses: null, PublicKeyAlgorithm: 3 });
    expect(r.URIs[0]).toMatchObject({ Scheme: 'spiffe', Host: 'x', Path: '/y' });
    expect(r.Extensions.map((e: any) => [e.Id.join('.'), e.Critical])).toEqual([['2.5.29.17', false], ['2.5.29.15', true]]);
    // encoding/asn1 reads each extension as {Type, Value any}: the critical flag (a BOOLEAN) becomes nil.
    expect(r.Attributes).toEqual([{ Type: [1, 2, 840, 113549, 1, 9, 14], Value: [[{ Type: [2, 5, 29, 17], Value: r.Extensions[0].Value }, { Type: [2, 5, 29, 15], Value: null }]] }]);
    const der = Buffer.from(r.Raw, 'base64');
    expect(err('crypto.x509.parse_certificate_request', [Buffer.concat([der, Buffer.from([5, 0])]).toString('base64')])).toContain('x509: malformed certificate request');
  });

  it('leaves out attributes that are not sets of {type, value} sequences (challengePassword)', () => {
    writeFileSync(pki.path('att.cnf'), '[req]\ndistinguished_name=dn\nattributes=att\nprompt=no\n[dn]\nCN=att\n[att]\nchallengePassword=secret123\n');
    openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'att.key', '-config', 'att.cnf', '-out', 'att.pem']);
    const r = js('crypto.x509.parse_certificate_request', [readFileSync(pki.path('att.pem'), 'utf8')]);
    expect(r).toMatchObject({ Attributes: null, Extensions: null, PublicKeyAlgorithm: 1, SignatureAlgorithm: 4 });
    expect(r.PublicKey.E).toBe(65537);
  });
});

describe("Go's value forms", () => {
  it('keeps the zone of a time as written and accepts only texts Go formats back the same way', () => {
    expect(goTime('250102030405Z', true)).toBe('2025-01-02T03:04:05Z');
    expect(goTime('5001020304Z', true)).toBe('1950-01-02T03:04:00Z');
    expect(goTime('250102030405+0130', true)).toBe('2025-01-02T03:04:05+01:30');
    expect(goTime('20250102030405.25Z', false)).toBe('2025-01-02T03:04:05.25Z');
    expect(() => goTime('250102030405+0000', true)).toThrow('x509: malformed UTCTime');
    expect(() => goTime('20250102030405.250Z', false)).toThrow('x509: malformed GeneralizedTime');
  });
});
