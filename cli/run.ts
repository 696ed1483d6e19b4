// `regent run --server [flags] [paths…]`: start the OPA-compatible REST server
// (see server/README.md). Paths are policy/data files, directories and bundles
// (directories with a .manifest, or .tar.gz files), loaded before listening.
import { startServer, closeOnSignals, type StartOptions } from '../server/main.js';
import { MIN_TLS_VERSIONS, type MinTLSVersion } from '../server/listeners.js';
import type { AuthenticationMode, AuthorizationMode } from '../server/auth/identity.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec, type ParsedArgs } from './args.js';
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
  { name: 'config-file', short: 'c', type: 'string', metavar: 'FILE', description: 'set path of configuration file' },
  { name: 'set', type: 'string', repeatable: true, metavar: 'K=V', description: 'override config values on the command line (use commas to specify multiple values)' },
  { name: 'authentication', type: 'string', choices: ['off', 'token', 'tls'], default: 'off', description: 'set authentication scheme' },
  { name: 'authorization', type: 'string', choices: ['off', 'basic'], default: 'off', description: 'set authorization scheme' },
  { name: 'bundle', short: 'b', type: 'boolean', description: 'load paths as bundle files or root directories' },
  { name: 'v0-compatible', type: 'boolean', description: 'parse policies as Rego v0' },
  { name: 'workers', type: 'string', default: '0', metavar: 'N', description: 'evaluate in N worker threads (0: in-process)' },
  { name: 'eval-timeout', type: 'string', default: '0', metavar: 'MS', description: 'per-request evaluation time limit in milliseconds (0: none)' },
  { name: 'log-level', short: 'l', type: 'string', choices: ['debug', 'info', 'warn', 'error'], metavar: 'LEVEL', description: 'set log level (default: no request logs)' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for run' },
];

const USAGE = 'regent run --server [flags] [files]';
const DESCRIPTION = 'Start an instance of the policy engine serving the REST API.';

function nonNegativeInt(text: string | undefined, flag: string): number {
  const n = Number(text ?? '0');
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`invalid value ${JSON.stringify(text)} for --${flag}: want a non-negative integer`);
  return n;
}

/** Repeatable address flags also take comma-separated lists (OPA's string slices). */
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
    workers: nonNegativeInt(str(args, 'workers'), 'workers'),
    evalTimeoutMs: nonNegativeInt(str(args, 'eval-timeout'), 'eval-timeout'),
  };
  const optional: [keyof StartOptions, string][] = [
    ['configFile', 'config-file'],
    ['tlsCertFile', 'tls-cert-file'],
    ['tlsPrivateKeyFile', 'tls-private-key-file'],
    ['tlsCACertFile', 'tls-ca-cert-file'],
    ['logLevel', 'log-level'],
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
    if (!bool(args, 'server')) throw new UsageError('only server mode is supported: add --server');
    options = runOptions(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, RUN_FLAGS)}\n`);
    return 2;
  }
  let server;
  try {
    server = await startServer({ ...options, version: version() });
  } catch (e) {
    io.err(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  io.err(server.urls.map((url) => `Regent server listening on ${url}\n`).join(''));
  await closeOnSignals(server);
  return 0;
}
