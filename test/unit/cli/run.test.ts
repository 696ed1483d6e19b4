// `regent run` flags: parsing into the server's start options (repeatable and
// comma-separated --addr / --diagnostic-addr, the TLS files, --min-tls-version,
// --unix-socket-perm, --authentication=tls), the help text, usage errors, and
// startup errors reported with exit code 1 before anything listens.
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../cli/args.js';
import { RUN_FLAGS, runCommand, runOptions } from '../../../cli/run.js';
import { capture } from './helpers.js';

const options = (argv: string[]): ReturnType<typeof runOptions> => runOptions(parseArgs(argv, RUN_FLAGS));

describe('regent run flags', () => {
  it('defaults as opa run does', () => {
    const o = options(['--server']);
    expect(o.addrs).toEqual(['localhost:8181']);
    expect(o.diagnosticAddrs).toEqual([]);
    expect(o).toMatchObject({ authentication: 'off', authorization: 'off', minTLSVersion: '1.2', unixSocketPerm: '755' });
    expect(o.tlsCertFile).toBeUndefined();
    expect(o.tlsCACertFile).toBeUndefined();
  });

  it('collects repeated and comma-separated addresses', () => {
    const o = options(['-s', '--addr', ':8181', '-a', 'https://0.0.0.0:8443,unix:///tmp/r.sock', '--diagnostic-addr=:8282', '--diagnostic-addr', 'localhost:8283']);
    expect(o.addrs).toEqual([':8181', 'https://0.0.0.0:8443', 'unix:///tmp/r.sock']);
    expect(o.diagnosticAddrs).toEqual([':8282', 'localhost:8283']);
  });

  it('maps the TLS flags and TLS authentication', () => {
    const o = options([
      ...['-s', '--tls-cert-file', 'c.pem', '--tls-private-key-file=k.pem', '--tls-ca-cert-file', 'ca.pem'],
      ...['--min-tls-version', '1.3', '--authentication', 'tls', '--authorization=basic', '--unix-socket-perm', '700', 'policy.rego'],
    ]);
    expect(o).toMatchObject({
      tlsCertFile: 'c.pem',
      tlsPrivateKeyFile: 'k.pem',
      tlsCACertFile: 'ca.pem',
      minTLSVersion: '1.3',
      authentication: 'tls',
      authorization: 'basic',
      unixSocketPerm: '700',
      paths: ['policy.rego'],
    });
  });

  it('rejects unknown TLS versions and authentication schemes', () => {
    expect(() => options(['-s', '--min-tls-version', '1.4'])).toThrow(UsageError);
    expect(() => options(['-s', '--authentication', 'basic'])).toThrow(/must be one of off, token, tls/);
  });

  it('lists the listener and TLS flags in the help', async () => {
    const c = capture();
    expect(await runCommand(['--help'], c.io)).toBe(0);
    for (const flag of ['--addr', '--diagnostic-addr', '--unix-socket-perm', '--tls-cert-file', '--tls-private-key-file', '--tls-ca-cert-file', '--min-tls-version'])
      expect(c.out).toContain(flag);
    expect(c.out).toMatch(/--addr ADDR .*repeatable; default localhost:8181/);
  });

  it('exits 2 on usage errors and 1 on startup errors', async () => {
    const usage = capture();
    expect(await runCommand(['-s', '--min-tls-version', '1.9'], usage.io)).toBe(2);
    expect(usage.err).toContain('invalid value "1.9" for --min-tls-version');
    const https = capture();
    expect(await runCommand(['-s', '--addr', 'https://127.0.0.1:0'], https.io)).toBe(1);
    expect(https.err).toContain('TLS certificate required but not supplied');
    const half = capture();
    expect(await runCommand(['-s', '--addr', '127.0.0.1:0', '--tls-cert-file', 'x.pem'], half.io)).toBe(1);
    expect(half.err).toContain('--tls-cert-file and --tls-private-key-file must be specified together');
    const scheme = capture();
    expect(await runCommand(['-s', '--addr', 'ftp://127.0.0.1:0'], scheme.io)).toBe(1);
    expect(scheme.err).toContain('invalid url scheme "ftp"');
  });
});
