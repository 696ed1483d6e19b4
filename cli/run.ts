// `regent run --server [flags] [paths…]`: start the OPA-compatible REST server
// (see server/README.md). Paths are policy/data files, directories and bundles
// (directories with a .manifest, or .tar.gz files), loaded before listening.
// Without --server: the interactive REPL (cli/repl.ts). -w/--watch reloads the
// paths on change in either mode (cli/run-watch.ts).
import { availableParallelism } from 'node:os';
import { startServer, closeOnSignals, type StartOptions } from '../server/main.js';
import { MIN_TLS_VERSIONS, type MinTLSVersion } from '../server/listeners.js';
import type { AuthenticationMode, AuthorizationMode } from '../server/auth/identity.js';
import { UsageError, bool, formatHelp, list, parseArgs, parseGoDuration, str, type FlagSpec, type ParsedArgs } from './args.js';
import { usageFailed } from './usage.js';

export { parseGoDuration } from './args.js';
import { version, type IO } from './main.js';

export const RUN_FLAGS: FlagSpec[] = [
  { name: 'server', short: 's', type: 'boolean', description: 'start the runtime in server mode' },
  { name: 'addr', short: 'a', type: 'string', repeatable: true, default: 'localhost:8181', metavar: 'ADDR', description: 'set listening address of the server (e.g. [ip]:<port> for TCP, unix://<path> for UNIX domain socket)' },
  { name: 'diagnostic-addr', type: 'string', repeatable: true, metavar: 'ADDR', description: 'set read-only diagnostic listening address of the server for /health and /metrics (same forms as --addr)' },
  { name: 'unix-socket-perm', type: 'string', default: '755', metavar: 'MODE', description: 'set the permissions (octal) of UNIX domain sockets the server listens on' },
  { name: 'tls-cert-file', type: 'string', metavar: 'FILE', description: 'set path of TLS certificate file' },
  { name: 'tls-private-key-file', type: 'string', metavar: 'FILE', description: 'set path of TLS private key file' },
  { name: 'tls-ca-cert-file', type: 'string', metavar: 'FILE', description: 'set path of TLS CA cert file' },
  { name: 'min-tls-version', type: 'string', choices: [...MIN_TLS_VERSIONS], default: '1.2', description: 'set minimum TLS version to be used by the server' },
  { name: 'tls-cert-refresh-period', type: 'string', default: '0s', metavar: 'DURATION', description: 'set certificate refresh period (e.g. 30s, 5m; 0: reload the TLS files when they change)' },
  { name: 'tls-cipher-suites', type: 'string', repeatable: true, metavar: 'NAMES', description: 'set list of enabled TLS 1.0–1.2 cipher suites (IANA), comma-separated' },
  { name: 'h2c', type: 'boolean', description: 'enable H2C for HTTP listeners' },
  { name: 'shutdown-grace-period', type: 'string', default: '10', metavar: 'SECONDS', description: 'set the time (in seconds) that the server will wait to gracefully shut down' },
  { name: 'shutdown-wait-period', type: 'string', default: '0', metavar: 'SECONDS', description: 'set the time (in seconds) that the server will wait before initiating shutdown' },
  { name: 'config-file', short: 'c', type: 'string', metavar: 'FILE', description: 'set path of configuration file' },
  { name: 'set', type: 'string', repeatable: true, metavar: 'K=V', description: 'override config values on the command line (use commas to specify multiple values)' },
  { name: 'authentication', type: 'string', choices: ['off', 'token', 'tls'], default: 'off', description: 'set authentication scheme' },
  { name: 'authorization', type: 'string', choices: ['off', 'basic'], default: 'off', description: 'set authorization scheme' },
  { name: 'bundle', short: 'b', type: 'boolean', description: 'load paths as bundle files or root directories' },
  { name: 'v0-compatible', type: 'boolean', description: 'parse policies as Rego v0' },
  { name: 'workers', type: 'string', default: 'auto', metavar: 'N', description: 'evaluate in N worker threads (0: on the main thread; auto: one less than the CPUs, 1 to 4)' },
  { name: 'eval-timeout', type: 'string', default: '10s', metavar: 'DURATION', description: 'per-evaluation deadline, a Go duration (10s, 500ms) or milliseconds; past it the query fails with eval_cancel_error (0: none)' },
  { name: 'max-collection-size', type: 'string', default: '10000000', metavar: 'N', description: 'most members of any collection an evaluation builds (comprehensions, query results, objects, sets); 0: no cap' },
  { name: 'backend', type: 'string', choices: ['js', 'wasm'], metavar: 'NAME', description: 'back end of Data API decisions: js (generated JavaScript) or wasm (policies compiled to WebAssembly; a Regent extension, also config key regent.backend)' },
  { name: 'worker-heap-mb', type: 'string', default: '2048', metavar: 'MB', description: 'heap limit of each evaluation worker; a worker that exceeds it is replaced' },
  { name: 'log-level', short: 'l', type: 'string', choices: ['debug', 'info', 'warn', 'error'], metavar: 'LEVEL', description: 'set log level (default: no request logs)' },
  { name: 'disable-telemetry', type: 'boolean', description: 'accepted for OPA compatibility; regent sends no telemetry' },
  { name: 'watch', short: 'w', type: 'boolean', description: 'watch command line files for changes' },
  { name: 'format', short: 'f', type: 'string', choices: ['json', 'pretty'], default: 'pretty', description: 'set shell output format, i.e, pretty, json' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for run' },
];

const USAGE = 'regent run [flags] [files]';
const DESCRIPTION = 'Start an instance of the policy engine: the interactive shell (REPL), or with --server the REST API.';

function nonNegativeInt(text: string | undefined, flag: string): number {
  const n = Number(text ?? '0');
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`invalid value ${JSON.stringify(text)} for --${flag}: want a non-negative integer`);
  return n;
}

/** `--workers`: a count, or `auto` (one less than the CPUs, at least 1 and at most 4). */
export function workerCount(text: string | undefined): number {
  if (text === undefined || text === 'auto') return Math.max(1, Math.min(4, availableParallelism() - 1));
  return nonNegativeInt(text, 'workers');
}

/** An integer flag (Go's strconv.Atoi-like: negative values allowed). */
function integer(text: string | undefined, flag: string): number {
  const n = Number(text);
  if (text === undefined || !/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(n)) throw new UsageError(`invalid value ${JSON.stringify(text)} for --${flag}: want an integer`);
  return n;
}

function duration(text: string | undefined, flag: string): number {
  try {
    return parseGoDuration(text ?? '0');
  } catch (e) {
    throw new UsageError(`invalid value ${JSON.stringify(text)} for --${flag}: ${(e as Error).message}`);
  }
}

/** `--eval-timeout`: plain milliseconds, or a Go duration. */
function evalTimeout(text: string | undefined): number {
  if (text !== undefined && /^\d+$/.test(text)) return Number(text);
  const ms = duration(text, 'eval-timeout');
  if (ms < 0) throw new UsageError(`invalid value ${JSON.stringify(text)} for --eval-timeout: want a non-negative duration`);
  return Math.ceil(ms);
}

function positiveInt(text: string | undefined, flag: string): number {
  const n = nonNegativeInt(text, flag);
  if (n === 0) throw new UsageError(`invalid value ${JSON.stringify(text)} for --${flag}: want a positive integer`);
  return n;
}

/** Repeatable list flags also take comma-separated lists (OPA's string slices). */
function addresses(args: ParsedArgs, flag: string): string[] {
  return list(args, flag).flatMap((v) => v.split(',')).filter((v) => v !== '');
}

/** The server options the parsed flags and paths ask for (everything but the version). */
export function runOptions(args: ParsedArgs): Omit<StartOptions, 'version'> {
  const opts: Omit<StartOptions, 'version'> = {
    addrs: addresses(args, 'addr').length > 0 ? addresses(args, 'addr') : ['localhost:8181'],
    diagnosticAddrs: addresses(args, 'diagnostic-addr'),
    sets: list(args, 'set'),
    authentication: (str(args, 'authentication') ?? 'off') as AuthenticationMode,
    authorization: (str(args, 'authorization') ?? 'off') as AuthorizationMode,
    minTLSVersion: (str(args, 'min-tls-version') ?? '1.2') as MinTLSVersion,
    unixSocketPerm: str(args, 'unix-socket-perm') ?? '755',
    v0Compatible: bool(args, 'v0-compatible'),
    bundles: bool(args, 'bundle'),
    paths: args.positionals,
    workers: workerCount(str(args, 'workers')),
    evalTimeoutMs: evalTimeout(str(args, 'eval-timeout')),
    maxCollectionSize: nonNegativeInt(str(args, 'max-collection-size'), 'max-collection-size'),
    workerHeapMb: positiveInt(str(args, 'worker-heap-mb'), 'worker-heap-mb'),
    tlsCertRefreshMs: duration(str(args, 'tls-cert-refresh-period'), 'tls-cert-refresh-period'),
    h2c: bool(args, 'h2c'),
    shutdownGracePeriod: integer(str(args, 'shutdown-grace-period'), 'shutdown-grace-period'),
    shutdownWaitPeriod: integer(str(args, 'shutdown-wait-period'), 'shutdown-wait-period'),
  };
  const suites = addresses(args, 'tls-cipher-suites');
  if (suites.length > 0) opts.tlsCipherSuites = suites;
  const optional: [keyof StartOptions, string][] = [
    ['configFile', 'config-file'],
    ['tlsCertFile', 'tls-cert-file'],
    ['tlsPrivateKeyFile', 'tls-private-key-file'],
    ['tlsCACertFile', 'tls-ca-cert-file'],
    ['logLevel', 'log-level'],
    ['backend', 'backend'],
  ];
  for (const [key, flag] of optional) {
    const v = str(args, flag);
    if (v) Object.assign(opts, { [key]: v });
  }
  return opts;
}

export async function runCommand(argv: string[], io: IO): Promise<number> {
  let args;
  let options: Omit<StartOptions, 'version'>;
  try {
    args = parseArgs(argv, RUN_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, RUN_FLAGS) + '\n');
      return 0;
    }
    if (!bool(args, 'server')) {
      const repl = { paths: args.positionals, bundles: bool(args, 'bundle'), v0: bool(args, 'v0-compatible'), watch: bool(args, 'watch'), version: version() };
      return (await import('./repl.js')).runRepl({ ...repl, format: (str(args, 'format') ?? 'pretty') as 'json' | 'pretty' }, io);
    }
    options = runOptions(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, RUN_FLAGS));
  }
  let server;
  try {
    server = await startServer({ ...options, version: version() });
  } catch (e) {
    io.err(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  io.err(server.urls.map((url) => `Regent server listening on ${url}\n`).join(''));
  const { regent } = server.app;
  const watcher = bool(args, 'watch') ? (await import('./run-watch.js')).watchServer(regent.engine, regent.host, options.paths ?? [], options.bundles ?? false, (l) => io.err(l)) : undefined;
  const failure = await closeOnSignals(server);
  watcher?.close();
  if (failure === undefined) return 0;
  // OPA logs this and exits with 1 when requests outlive --shutdown-grace-period.
  io.err(`error: Failed to shutdown server gracefully: ${failure}\n`);
  return 1;
}
