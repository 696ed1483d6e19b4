// `regent run --server [flags] [paths…]`: start the OPA-compatible REST server
// (see server/README.md). Paths are policy/data files, directories and bundles
// (directories with a .manifest, or .tar.gz files), loaded before listening.
import { startServer, closeOnSignals } from '../server/main.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { version, type IO } from './main.js';

export const RUN_FLAGS: FlagSpec[] = [
  { name: 'server', short: 's', type: 'boolean', description: 'start the runtime in server mode' },
  { name: 'addr', short: 'a', type: 'string', default: 'localhost:8181', metavar: 'ADDR', description: 'set listening address of the server (e.g. [ip]:<port>)' },
  { name: 'config-file', short: 'c', type: 'string', metavar: 'FILE', description: 'set path of configuration file' },
  { name: 'set', type: 'string', repeatable: true, metavar: 'K=V', description: 'override config values on the command line (use commas to specify multiple values)' },
  { name: 'authentication', type: 'string', choices: ['off', 'token'], default: 'off', description: 'set authentication scheme' },
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

export async function runCommand(argv: string[], io: IO): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, RUN_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, RUN_FLAGS) + '\n');
      return 0;
    }
    if (!bool(args, 'server')) throw new UsageError('only server mode is supported: add --server');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, RUN_FLAGS)}\n`);
    return 2;
  }
  let server;
  try {
    const logLevel = str(args, 'log-level');
    server = await startServer({
      addr: str(args, 'addr') ?? 'localhost:8181',
      ...(str(args, 'config-file') ? { configFile: str(args, 'config-file')! } : {}),
      sets: list(args, 'set'),
      authentication: str(args, 'authentication') as 'off' | 'token',
      authorization: str(args, 'authorization') as 'off' | 'basic',
      v0Compatible: bool(args, 'v0-compatible'),
      bundles: bool(args, 'bundle'),
      paths: args.positionals,
      workers: nonNegativeInt(str(args, 'workers'), 'workers'),
      evalTimeoutMs: nonNegativeInt(str(args, 'eval-timeout'), 'eval-timeout'),
      version: version(),
      ...(logLevel ? { logLevel } : {}),
    });
  } catch (e) {
    io.err(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  io.err(`Regent server listening on ${server.url}\n`);
  await closeOnSignals(server);
  return 0;
}
