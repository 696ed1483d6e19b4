// `regent control-plane <subcommand>`: the control plane service.
//   run    [-c FILE|DIR]... [--addr HOST:PORT] [--data-dir DIR] [--log-level L]
//          Serve the control plane API (and build bundles) until SIGINT/SIGTERM.
//   build  Single-shot build of the configured bundles; implemented by the
//          builder side in cli/control-plane-build.ts, loaded when present.
// Without -c, `config.d` is used when it exists (as the reference does). An
// invalid configuration stops start-up with the validation message, exit code 1.
import { existsSync } from 'node:fs';
import type { IO } from './output.js';

const USAGE = `Usage:
  regent control-plane run [-c config.yaml]... [--addr :8282] [--data-dir DIR] [--log-level LEVEL]
  regent control-plane build [flags]

Flags of run:
  -c, --config PATH     configuration file or directory (repeatable; default config.d when present)
  -a, --addr ADDR       listen address: HOST:PORT, :PORT, or a unix socket as unix://PATH,
                        /PATH or ./PATH (default localhost:8282)
  -d, --data-dir DIR    working directory; SQLite lives at DIR/sqlite.db (default data)
      --log-level LEVEL debug, info, warn or error (default info)
  -h, --help            show this help
`;

export interface RunFlags {
  help?: boolean;
  configs: string[];
  addr: string;
  dataDir: string;
  logLevel: string;
}

/** Parse `run` flags; returns an error message for bad usage. */
export function parseRunFlags(argv: string[]): RunFlags | string {
  const flags: RunFlags = { configs: [], addr: 'localhost:8282', dataDir: 'data', logLevel: 'info' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const [name, inline] = arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    let v: string | undefined;
    switch (name) {
      case '-c':
      case '--config':
        if ((v = value()) === undefined) return `flag ${name} needs a value`;
        flags.configs.push(v);
        break;
      case '-a':
      case '--addr':
        if ((v = value()) === undefined) return `flag ${name} needs a value`;
        flags.addr = v;
        break;
      case '-d':
      case '--data-dir':
        if ((v = value()) === undefined) return `flag ${name} needs a value`;
        flags.dataDir = v;
        break;
      case '-h':
      case '--help':
        flags.help = true;
        break;
      case '--log-level':
        if ((v = value()) === undefined) return `flag ${name} needs a value`;
        flags.logLevel = v;
        break;
      default:
        return `unknown flag or argument "${arg}"`;
    }
  }
  if (flags.configs.length === 0 && existsSync('config.d')) flags.configs.push('config.d');
  return flags;
}

/** A unix socket address, as the reference reads `--addr`: `unix://PATH`, or a value starting with `/` or `./`. */
export function unixSocketPath(addr: string): string | undefined {
  if (addr.startsWith('unix://')) return addr.slice(7);
  if (addr.startsWith('/') || addr.startsWith('./')) return addr;
  return undefined;
}

/** `HOST:PORT`, `:PORT` (all interfaces) or `[v6]:PORT`. */
export function parseAddr(addr: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  const host = m[1] ?? m[2] ?? '';
  return { host: host === '' ? '0.0.0.0' : host === 'localhost' ? '127.0.0.1' : host, port };
}

async function runCommand(argv: string[], io: IO): Promise<number> {
  const flags = parseRunFlags(argv);
  if (typeof flags === 'string') {
    io.err(`regent control-plane run: ${flags}\n\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    io.out(USAGE);
    return 0;
  }
  const socketPath = unixSocketPath(flags.addr);
  const addr = socketPath !== undefined ? { host: '', port: 0 } : parseAddr(flags.addr);
  if (!addr) {
    io.err(`regent control-plane run: invalid --addr "${flags.addr}"\n`);
    return 2;
  }
  const { loadConfigFiles } = await import('../server/control-plane/config/load.js');
  const { createControlPlane } = await import('../server/control-plane/index.js');
  const { ConfigError } = await import('../server/control-plane/errors.js');
  let cp;
  try {
    const config = loadConfigFiles(flags.configs);
    cp = createControlPlane({ config, dataDir: flags.dataDir, host: addr.host, port: addr.port, socketPath, logLevel: flags.logLevel });
    await cp.start();
  } catch (e) {
    const msg = e instanceof ConfigError ? e.message : `start failed: ${(e as Error).message}`;
    io.err(`regent control-plane: ${msg}\n`);
    return 1;
  }
  const running = cp;
  await new Promise<void>((resolve) => {
    const onSignal = (): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await running.stop();
  return 0;
}

/** The builder side's `build` subcommand, imported on use (CLI start-up). */
async function buildSubcommand(argv: string[], io: IO): Promise<number> {
  const { controlPlaneBuildCommand } = await import('./control-plane-build.js');
  return controlPlaneBuildCommand(argv, io);
}

export async function controlPlaneCommand(argv: string[], io: IO): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'run':
      return runCommand(rest, io);
    case 'build':
      return buildSubcommand(rest, io);
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io[sub === undefined ? 'err' : 'out'](USAGE);
      return sub === undefined ? 2 : 0;
    default:
      io.err(`regent control-plane: unknown subcommand "${sub}"\n\n${USAGE}`);
      return 2;
  }
}
