// Unit tests for providers.aws.sign_req (providers.ts): the providers-aws
// conformance cases (request bodies given as sets there are arrays here: both
// marshal to the same JSON), plus argument errors.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/providers.js';
import { BuiltinError } from '../../../runtime/builtins/errors.js';
import type { BuiltinContext } from '../../../runtime/builtins/types.js';
import { fromJS, toJS, type Value } from '../../../runtime/value/index.js';

const ctx: BuiltinContext = { strict: true, cache: new Map(), nowNs: 0n, print() {}, runtime: null, extras: {} };
const sign = (args: unknown[]): Value | undefined => builtins[0]!.impl(args.map((a) => fromJS(a)), ctx);
function err(args: unknown[]): string {
  try {
    sign(args);
  } catch (e) {
    if (e instanceof BuiltinError) return `${e.code}: providers.aws.sign_req: ${e.message}`;
    throw e;
  }
  throw new Error('no error');
}
const TS = 1451311705000000000;

describe('providers.aws.sign_req (conformance providers-aws)', () => {
  for (const c of CASES) {
    it(c.note, () => {
      expect(toJS(sign([c.req, c.cfg, TS])!)).toEqual(c.expected);
    });
  }
});

describe('providers.aws.sign_req errors', () => {
  const cfg = { aws_access_key: 'a', aws_secret_access_key: 'b', aws_service: 's3', aws_region: 'us-east-1' };
  it('reports missing and invalid parameters', () => {
    expect(err([{ method: 'get', url: 'http://x' }, { aws_service: 's3' }, TS])).toBe(
      'eval_type_error: providers.aws.sign_req: operand 2 missing required AWS config parameters(s): {"aws_access_key", "aws_region", "aws_secret_access_key"}',
    );
    expect(err([{ method: 'get', url: 'http://x' }, { ...cfg, aws_region: 1 }, TS])).toContain(
      'invalid values for required AWS config parameters(s): {"aws_region"}',
    );
    expect(err([{ method: 'get' }, cfg, TS])).toContain('operand 1 missing required request parameters(s): {"url"}');
    expect(err([{ method: 1, url: 'http://x' }, cfg, TS])).toContain('operand 1 invalid values for required request parameters(s): {"method"}');
    expect(err([{ method: 'get', url: 'http://x' }, { ...cfg, disable_payload_signing: 'yes' }, TS])).toContain(
      "invalid value for 'disable_payload_signing' in AWS config",
    );
    expect(err(['x', cfg, TS])).toBe('eval_type_error: providers.aws.sign_req: operand 1 must be object but got string');
  });
  it('keeps the path and query in the canonical request', () => {
    const a = toJS(sign([{ method: 'get', url: 'https://example.com/a/b?x=1' }, cfg, TS])!) as any;
    const b = toJS(sign([{ method: 'get', url: 'https://example.com/a/c?x=1' }, cfg, TS])!) as any;
    expect(a.headers.host).toBe('example.com');
    expect(a.headers.Authorization).not.toBe(b.headers.Authorization);
  });
});

const CASES: { note: string; req: unknown; cfg: unknown; expected: unknown }[] = [
  {"note": "providers-aws-sign_req/success-simple-no body", "req": {"method": "get", "url": "http://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3"}, "expected": {"headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=0047a7016c81e5c7f29cd522f97e911e04fc472fced0aee7916cbc287ad6c8e3", "host": "example.com", "x-amz-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "http://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-with headers no body", "req": {"headers": {"foo": "bar"}, "method": "get", "url": "http://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3"}, "expected": {"headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=8f1dc7c9b9978356a0d0989fd26a95307f4f8a4aa264d8220647b7097d839952", "foo": "bar", "host": "example.com", "x-amz-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "http://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-no body-with session token", "req": {"method": "get", "url": "http://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3", "aws_session_token": "MYAWSSECURITYTOKENGOESHERE"}, "expected": {"headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,Signature=23c31bda8a74630c0a94f6b82a3511e7e74728df98e6f54ed0840488dbbdc8d1", "host": "example.com", "x-amz-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "x-amz-date": "20151228T140825Z", "x-amz-security-token": "MYAWSSECURITYTOKENGOESHERE"}, "method": "get", "url": "http://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-body", "req": {"body": {"example": [1, 2, 3, 4]}, "method": "get", "url": "http://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3"}, "expected": {"body": {"example": [1, 2, 3, 4]}, "headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=5fb06ab1cfd74c8fcb3af95b8cce696708cf6155d971dac10f254d79799c6e88", "host": "example.com", "x-amz-content-sha256": "bacff6243c850423883052ac3c336fd645994442933408dfd3f9e858e69bda07", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "http://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-raw_body", "req": {"method": "get", "raw_body": "{\"example\": {1, 2, 3, 4}}", "url": "http://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3"}, "expected": {"headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=5bf26e169cb8b02330dba39d53932532438fc856c2f10537689a09ed807c7195", "host": "example.com", "x-amz-content-sha256": "22906461e2a98a3e780d0fd260e341bed5e544661e97c5936fc7f3af11aaad8b", "x-amz-date": "20151228T140825Z"}, "method": "get", "raw_body": "{\"example\": {1, 2, 3, 4}}", "url": "http://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-body-and-raw_body", "req": {"body": {"example": [1, 2, 3, 4]}, "method": "get", "raw_body": "{\"example\": {1, 2, 3, 4}}", "url": "http://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3"}, "expected": {"body": {"example": [1, 2, 3, 4]}, "headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=5bf26e169cb8b02330dba39d53932532438fc856c2f10537689a09ed807c7195", "host": "example.com", "x-amz-content-sha256": "22906461e2a98a3e780d0fd260e341bed5e544661e97c5936fc7f3af11aaad8b", "x-amz-date": "20151228T140825Z"}, "method": "get", "raw_body": "{\"example\": {1, 2, 3, 4}}", "url": "http://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-with-headers-no-body-with-payload-signing", "req": {"headers": {"foo": "bar"}, "method": "get", "url": "https://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3", "disable_payload_signing": false}, "expected": {"headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=8f1dc7c9b9978356a0d0989fd26a95307f4f8a4aa264d8220647b7097d839952", "foo": "bar", "host": "example.com", "x-amz-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "https://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-with-headers-no-body-no-payload-signing", "req": {"headers": {"foo": "bar"}, "method": "get", "url": "https://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3", "disable_payload_signing": true}, "expected": {"headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=c6e6db654e92172f71e18c714c123711de069ac6fd7df1348e5b28fd05532028", "foo": "bar", "host": "example.com", "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "https://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-with-headers-with-body-with-payload-signing", "req": {"body": {"example": [1, 2, 3, 4]}, "headers": {"foo": "bar"}, "method": "get", "url": "https://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3", "disable_payload_signing": false}, "expected": {"body": {"example": [1, 2, 3, 4]}, "headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=f6703a8727ec0a32f81b225a002f622e511e8a7d2ca8914894fcbb7a71d8d9d8", "foo": "bar", "host": "example.com", "x-amz-content-sha256": "bacff6243c850423883052ac3c336fd645994442933408dfd3f9e858e69bda07", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "https://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-with-headers-with-body-no-payload-signing", "req": {"body": {"example": [1, 2, 3, 4]}, "headers": {"foo": "bar"}, "method": "get", "url": "https://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3", "disable_payload_signing": true}, "expected": {"body": {"example": [1, 2, 3, 4]}, "headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=c6e6db654e92172f71e18c714c123711de069ac6fd7df1348e5b28fd05532028", "foo": "bar", "host": "example.com", "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "https://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-with-existing-sha-header-with-body-with-payload-signing", "req": {"body": {"example": [1, 2, 3, 4]}, "headers": {"foo": "bar", "x-amz-content-sha256": "existing-value"}, "method": "get", "url": "https://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3", "disable_payload_signing": false}, "expected": {"body": {"example": [1, 2, 3, 4]}, "headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=42bcac7fc6d170e09be72fdf38b62e59361265bc59d5f9156f0d6faf889e98ba", "foo": "bar", "host": "example.com", "x-amz-content-sha256": "bacff6243c850423883052ac3c336fd645994442933408dfd3f9e858e69bda07", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "https://example.com"}},
  {"note": "providers-aws-sign_req/success-simple-with-existing-sha-header-with-body-no-payload-signing", "req": {"body": {"example": [1, 2, 3, 4]}, "headers": {"foo": "bar", "x-amz-content-sha256": "existing-value"}, "method": "get", "url": "https://example.com"}, "cfg": {"aws_access_key": "MYAWSACCESSKEYGOESHERE", "aws_region": "us-east-1", "aws_secret_access_key": "MYAWSSECRETACCESSKEYGOESHERE", "aws_service": "s3", "disable_payload_signing": true}, "expected": {"body": {"example": [1, 2, 3, 4]}, "headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=edcd3ca3fd3acdfbcecad1a1d8062dbc6562d90352e294c336f9727397f9c383", "foo": "bar", "host": "example.com", "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-date": "20151228T140825Z"}, "method": "get", "url": "https://example.com"}},
];
