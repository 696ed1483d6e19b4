// `regent check [--v0-compatible] [--strict] [--format pretty|json] PATH...`: parse and compile
// every .rego file found under the paths (files or directories, recursively), as
// `opa check` does. Success prints nothing and exits 0. Otherwise all errors are
// printed to stderr — `N errors occurred:` then `file:row: code: message` lines
// (pretty) or `{"errors":[…]}` (json) — and the exit code is 1.
// Each file is parsed on its own first, so parse errors of every file are reported
// together; only when all files parse are they compiled as one policy.
// `--strict` (`-S`) adds OPA's strict-mode checks (compiler/strict/): unused imports,
// locals and arguments, duplicate imports, `input`/`data` shadowing, deprecated builtins.
// `-s/--schema` type-checks `input` refs against a JSON schema and `--capabilities`
// limits the builtins (cli/eval-schema.ts, cli/eval-context.ts), as `opa check` does.
import { readFileSync } from 'node:fs';
import type { SourceFile } from '../compiler/api.js';
import type { Module } from '../compiler/ast/nodes.js';
import { compile, parseModule } from '../compiler/index.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { LoadError, findRegoFiles } from './loader.js';
import { extraChecks } from './eval-context.js';
import { errorsJSON, errorsText, toOutputErrors, type IO, type OutputError } from './output.js';

export const CHECK_FLAGS: FlagSpec[] = [
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json'], default: 'pretty', description: 'set output format' },
  { name: 'v0-compatible', type: 'boolean', description: 'accept Rego v0 syntax' },
  { name: 'strict', short: 'S', type: 'boolean', description: 'enable compiler strict mode' },
  { name: 'ignore', type: 'string', repeatable: true, metavar: 'GLOB', description: 'skip files and directories whose name matches' },
  { name: 'max-errors', short: 'm', type: 'string', default: '10', metavar: 'N', description: 'report at most N errors (0 or negative: all)' },
  { name: 'schema', short: 's', type: 'string', metavar: 'PATH', description: 'set schema file path or directory path' },
  { name: 'capabilities', type: 'string', metavar: 'FILE|VERSION', description: 'set capabilities version or capabilities.json file path' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for check' },
];

const USAGE = 'regent check [flags] <path> [path [...]]';
const DESCRIPTION = 'Check Rego source files for parse and compilation errors.';

/** Parse and compile the files; returns every error found (empty when fine). */
export function checkFiles(files: SourceFile[], v0Compatible: boolean, strict = false, extra?: (modules: Module[]) => OutputError[]): OutputError[] {
  const errors: OutputError[] = [];
  for (const f of files) {
    try {
      parseModule(f.text, f.file, { v0Compatible });
    } catch (e) {
      errors.push(...toOutputErrors(e));
    }
  }
  if (errors.length > 0) return errors;
  try {
    const policy = compile(files, { v0Compatible, strict });
    if (extra) errors.push(...extra(policy.state.modules));
  } catch (e) {
    errors.push(...toOutputErrors(e));
  }
  return errors;
}

/** The `check` command. */
export function checkCommand(argv: string[], io: IO): number {
  let args;
  let maxErrors = 10;
  try {
    args = parseArgs(argv, CHECK_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, CHECK_FLAGS) + '\n');
      return 0;
    }
    if (args.positionals.length === 0) throw new UsageError('specify at least one path to check');
    maxErrors = Number(str(args, 'max-errors') ?? '10');
    if (!Number.isInteger(maxErrors)) throw new UsageError(`invalid --max-errors value: ${str(args, 'max-errors')}`);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, CHECK_FLAGS)}\n`);
    return 2;
  }
  const json = str(args, 'format') === 'json';
  let errors: OutputError[];
  try {
    const files = findRegoFiles(args.positionals, list(args, 'ignore')).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
    // -s/--schema and --capabilities: OPA's schema type checking and builtin limits (cli/eval-context.ts).
    const opts = { ...(str(args, 'schema') !== undefined ? { schema: str(args, 'schema')! } : {}), ...(str(args, 'capabilities') !== undefined ? { capabilities: str(args, 'capabilities')! } : {}) };
    const extra = opts.schema !== undefined || opts.capabilities !== undefined ? (modules: Module[]) => toOutputErrors({ errors: extraChecks(opts, modules) }) : undefined;
    errors = checkFiles(files, bool(args, 'v0-compatible'), bool(args, 'strict'), extra);
  } catch (e) {
    errors = e instanceof LoadError ? [{ message: e.message }] : toOutputErrors(e);
  }
  if (errors.length === 0) return 0;
  if (maxErrors > 0 && errors.length > maxErrors) {
    errors = errors.slice(0, maxErrors);
    errors.push({ code: 'rego_compile_error', message: 'error limit reached' });
  }
  io.err((json ? errorsJSON(errors) : errorsText(errors)) + '\n');
  return 1;
}
