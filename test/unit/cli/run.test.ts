// `regent run` flags: parsing into the server's start options (repeatable and
// comma-separated --addr / --diagnostic-addr, the TLS files, --min-tls-version,
// --unix-socket-perm, --authentication=tls, --tls-cipher-suites,
// --tls-cert-refresh-period as a Go duration, --h2c, --shutdown-grace-period),
// the help text, usage errors, and startup errors reported with exit code 1
// before anything listens.
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../cli/args.js';
import { availableParallelism } from 'node:os';
import { parseGoDuration, RUN_FLAGS, runCommand, runOptions, workerCount } from '../../../cli/run.js';
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
    expect(o).toMatchObject({ h2c: false, shutdownGracePeriod: 10, shutdownWaitPeriod: 0, tlsCertRefreshMs: 0 });
    expect(o.tlsCipherSuites).toBeUndefined();
  });

  it('evaluates in a worker pool by default, sized to the machine', () => {
    const auto = Math.max(1, Math.min(4, availableParallelism() - 1));
    expect(options(['--server']).workers).toBe(auto);
    expect(workerCount('auto')).toBe(auto);
    expect(options(['--server', '--workers', '0']).workers).toBe(0);
    expect(options(['--server', '--workers', '3']).workers).toBe(3);
    expect(() => workerCount('-1')).toThrow('invalid value "-1" for --workers: want a non-negative integer');
  });

  it('maps --h2c, --shutdown-grace-period, --tls-cert-refresh-period and --tls-cipher-suites', () => {
    const o = options([
      ...['-s', '--h2c', '--shutdown-grace-period', '3', '--tls-cert-refresh-period=1m30s'],
      ...['--tls-cipher-suites', 'TLS_A,TLS_B', '--tls-cipher-suites=TLS_C'],
    ]);
    expect(o).toMatchObject({ h2c: true, shutdownGracePeriod: 3, tlsCertRefreshMs: 90_000, tlsCipherSuites: ['TLS_A', 'TLS_B', 'TLS_C'] });
    expect(options(['-s', '--tls-cert-refresh-period', '100ms', '--shutdown-grace-period=-1'])).toMatchObject({ tlsCertRefreshMs: 100, shutdownGracePeriod: -1 });
  });

  it('parses Go durations with Go\'s errors', () => {
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('30s')).toBe(30_000);
    expect(parseGoDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseGoDuration('.5m')).toBe(30_000);
    expect(parseGoDuration('-1.5h')).toBe(-5_400_000);
    expect(parseGoDuration('250us')).toBe(0.25);
    expect(() => parseGoDuration('5')).toThrow('time: missing unit in duration "5"');
    expect(() => parseGoDuration('5d')).toThrow('time: unknown unit "d" in duration "5d"');
    expect(() => parseGoDuration('')).toThrow('time: invalid duration ""');
    expect(() => parseGoDuration('.s')).toThrow('time: invalid duration ".s"');
    expect(() => parseGoDuration('1h 2m')).toThrow('time: unknown unit "h " in duration "1h 2m"');
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
    for (const flag of [
      ...['--addr', '--diagnostic-addr', '--unix-socket-perm', '--tls-cert-file', '--tls-private-key-file', '--tls-ca-cert-file', '--min-tls-version'],
      ...['--tls-cert-refresh-period', '--tls-cipher-suites', '--h2c', '--shutdown-grace-period'],
    ])
      expect(c.out).toContain(flag);
    expect(c.out).toMatch(/--addr ADDR .*repeatable; default localhost:8181/);
  });

  it('exits 1 on usage errors (as cobra) and on startup errors', async () => {
    const usage = capture();
    expect(await runCommand(['-s', '--min-tls-version', '1.9'], usage.io)).toBe(1);
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
    const period = capture();
    expect(await runCommand(['-s', '--tls-cert-refresh-period', '5'], period.io)).toBe(1);
    expect(period.err).toContain('invalid value "5" for --tls-cert-refresh-period: time: missing unit in duration "5"');
    const grace = capture();
    expect(await runCommand(['-s', '--shutdown-grace-period', '1.5'], grace.io)).toBe(1);
    expect(grace.err).toContain('invalid value "1.5" for --shutdown-grace-period');
    const suite = capture();
    expect(await runCommand(['-s', '--addr', '127.0.0.1:0', '--tls-cipher-suites', 'TLS_CHACHA20_POLY1305_SHA256'], suite.io)).toBe(1);
    expect(suite.err).toContain('TLS 1.3 cipher suite "TLS_CHACHA20_POLY1305_SHA256" is not configurable');
  });
});
