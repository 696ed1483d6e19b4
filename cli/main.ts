// The regent command line: `regent <command> [flags] [args]`. Commands live in the
// COMMANDS table; each takes its argv (after the command name) and an IO object and
// returns an exit code; a new command is one more table entry. As opa (cobra): no
// command prints the usage on stdout (exit 0); an unknown command is an error (exit 1,
// usage.ts).
// A closed output pipe (`regent eval … | head -1`) ends the process quietly with
// status 141, as a Go binary killed by SIGPIPE reports in a shell.
// Command modules are imported only when their command runs (`lazy`): `regent version`
// loads no compiler, `regent eval` no server, control plane or cloud SDK.
import type { IO } from './output.js';
import { usageFailed } from './usage.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type { IO };

export interface Command {
  summary: string;
  run(argv: string[], io: IO): number | Promise<number>;
}

/** A command whose module is imported on first use. */
function lazy(load: () => Promise<Command['run']>): Command['run'] {
  return async (argv, io) => (await load())(argv, io);
}

export const COMMANDS: Record<string, Command> = {
  eval: { summary: 'Evaluate a Rego query', run: lazy(async () => (await import('./eval.js')).evalCommand) },
  parse: { summary: 'Parse Rego source file', run: lazy(async () => (await import('./parse.js')).parseCommand) },
  check: { summary: 'Check Rego source files', run: lazy(async () => (await import('./check.js')).checkCommand) },
  version: { summary: 'Print the version of regent', run: versionCommand },
  help: { summary: 'Help about any command', run: helpCommand },
  run: { summary: 'Start Regent in interactive mode (REPL), or as a server with --server', run: lazy(async () => (await import('./run.js')).runCommand) },
  build: { summary: 'Build an OPA bundle', run: lazy(async () => (await import('./build.js')).buildCommand) },
  test: { summary: 'Execute Rego test cases', run: lazy(async () => (await import('./test.js')).testCommand) },
  fmt: { summary: 'Format Rego source files', run: lazy(async () => (await import('./fmt.js')).fmtCommand) },
  bench: { summary: 'Benchmark a Rego query', run: lazy(async () => (await import('./bench.js')).benchCommand) },
  capabilities: { summary: 'Print the capabilities of regent', run: lazy(async () => (await import('./capabilities.js')).capabilitiesCommand) },
  inspect: { summary: 'Inspect OPA bundle(s)', run: lazy(async () => (await import('./inspect.js')).inspectCommand) },
  deps: { summary: 'Analyze Rego query dependencies', run: lazy(async () => (await import('./deps.js')).depsCommand) },
  exec: { summary: 'Execute against input files', run: lazy(async () => (await import('./exec.js')).execCommand) },
  sign: { summary: 'Generate an OPA bundle signature', run: lazy(async () => (await import('./sign.js')).signCommand) },
  'control-plane': { summary: 'Run the control plane service', run: lazy(async () => (await import('./control-plane.js')).controlPlaneCommand) },
};

export function usage(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length));
  return [
    'Regent: a Rego policy engine compatible with Open Policy Agent.',
    '',
    'Usage:',
    '  regent <command> [flags] [args]',
    '',
    'Commands:',
    ...names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n]!.summary}`),
    '',
    'Use "regent <command> --help" for more information about a command.',
  ].join('\n');
}

function helpCommand(argv: string[], io: IO): number | Promise<number> {
  const name = argv[0];
  if (name && COMMANDS[name] && name !== 'help') return COMMANDS[name].run(['--help'], io);
  io.out(usage() + '\n');
  return 0;
}

export function version(): string {
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    for (const p of [join(here, '..', 'package.json'), join(here, '..', '..', 'package.json')]) {
      try {
        const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'regent' && pkg.version) return pkg.version;
      } catch {
        // try the next candidate
      }
    }
  } catch {
    // fall through
  }
  return 'unknown';
}

function versionCommand(_argv: string[], io: IO): number {
  io.out(`Version: ${version()}\n`);
  return 0;
}

/** Exit status of a process killed by SIGPIPE, as a shell reports it. */
export const SIGPIPE_STATUS = 141;

let pipesGuarded = false;

/** Exit quietly when stdout or stderr is a closed pipe, instead of an unhandled 'error' event. */
export function guardPipes(): void {
  if (pipesGuarded) return;
  pipesGuarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') process.exit(SIGPIPE_STATUS);
      throw e;
    });
  }
}

/** IO bound to the process streams. */
export const processIO: IO = {
  out: (s) => void process.stdout.write(s),
  err: (s) => void process.stderr.write(s),
  stdin: () => readFileSync(0, 'utf8'),
};

/** Commands that evaluate policies outside the server (which installs its own runtime document). */
const EVALUATING_COMMANDS = new Set(['eval', 'test', 'exec', 'bench', 'run']);

/** Dispatch argv (without `node` and the script) to a command; returns the exit code. */
export async function main(argv: string[], io: IO = processIO): Promise<number> {
  if (io === processIO) guardPipes();
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    io.out(usage() + '\n');
    return 0;
  }
  if (name === '--version' || name === '-v') return versionCommand(rest, io);
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) return usageFailed(io, `unknown command "${name}" for "regent"\nRun 'regent --help' for usage.`);
  try {
    if (EVALUATING_COMMANDS.has(name)) {
      // opa.runtime() as `opa eval`/`opa test` give it: env, version, commit (no config)
      const { runtimeInfo, setRuntimeInfo } = await import('../runtime/eval/runtime-info.js');
      setRuntimeInfo(runtimeInfo({ version: version(), commit: process.env.REGENT_BUILD_COMMIT ?? '' }));
    }
    return await cmd.run(rest, io);
  } catch (e) {
    if (e instanceof RangeError && /call stack/.test(e.message)) {
      io.err(`regent ${name}: document too deeply nested\n`);
      return 1;
    }
    io.err(`regent ${name}: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 3;
  }
}
