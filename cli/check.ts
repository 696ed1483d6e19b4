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
// `-b/--bundle` checks the modules of bundle directories/tarballs, with the bundle
// rules and a data path-conflict check (cli/check-modes.ts); `--rego-v1` requires
// every module to be valid Rego v0 and v1 at once (cli/check-modes.ts);
// `--v1-compatible` is accepted (Rego v1 is the default; `--v0-compatible` and
// `--rego-v1` take precedence over it, as in opa). `--ignore` takes globs, repeated
// or comma-separated.
import { readFileSync } from 'node:fs';
import type { SourceFile } from '../compiler/api.js';
import type { Module } from '../compiler/ast/nodes.js';
import { compile, parseModule } from '../compiler/index.js';
import { UsageError, bool, formatHelp, parseArgs, str, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import { LoadError, findRegoFiles } from './loader.js';
import { capabilitiesFlagProblem, extraChecks, parserCapabilityErrors } from './eval-context.js';
import { errorsJSON, errorsText, toOutputErrors, type IO, type OutputError } from './output.js';
import { sliceFlag } from './build-flags.js';
import { bundleSources, checkRegoV1Files, pathConflicts } from './check-modes.js';

export const CHECK_FLAGS: FlagSpec[] = [
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json'], default: 'pretty', description: 'set output format' },
  { name: 'bundle', short: 'b', type: 'boolean', description: 'load paths as bundle files or root directories' },
  { name: 'v0-compatible', type: 'boolean', description: 'accept Rego v0 syntax' },
  { name: 'v1-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors that are enabled by default in OPA v1.0' },
  { name: 'rego-v1', type: 'boolean', description: 'check for Rego v0 and v1 compatibility (policies must be compatible with both Rego versions)' },
  { name: 'strict', short: 'S', type: 'boolean', description: 'enable compiler strict mode' },
  { name: 'ignore', type: 'string', repeatable: true, metavar: 'GLOB', description: 'skip files and directories whose name matches' },
  { name: 'max-errors', short: 'm', type: 'string', default: '10', metavar: 'N', description: 'report at most N errors (0 or negative: all)' },
  { name: 'schema', short: 's', type: 'string', metavar: 'PATH', description: 'set schema file path or directory path' },
  { name: 'capabilities', type: 'string', metavar: 'FILE|VERSION', description: 'set capabilities version or capabilities.json file path' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for check' },
];

const USAGE = 'regent check [flags] <path> [path [...]]';
const DESCRIPTION = 'Check Rego source files for parse and compilation errors.';

/**
 * Parse and compile the files; returns every error found (empty when fine). A
 * file's own `v0Compatible` (a bundle's version for it) wins over the flag;
 * `regoV1` checks OPA's RegoV0CompatV1 mode instead.
 */
export function checkFiles(files: SourceFile[], v0Compatible: boolean, strict = false, extra?: (modules: Module[]) => OutputError[], regoV1 = false): OutputError[] {
  if (regoV1) return checkRegoV1Files(files, strict, extra);
  const errors: OutputError[] = [];
  for (const f of files) {
    try {
      parseModule(f.text, f.file, { v0Compatible: f.v0Compatible ?? v0Compatible });
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

/** Print the errors (at most `maxErrors` when positive) as opa check does; returns the exit code. */
function report(errors: OutputError[], json: boolean, maxErrors: number, io: IO): number {
  if (errors.length === 0) return 0;
  if (maxErrors > 0 && errors.length > maxErrors) {
    errors = errors.slice(0, maxErrors);
    errors.push({ code: 'rego_compile_error', message: 'error limit reached' });
  }
  io.err((json ? errorsJSON(errors) : errorsText(errors)) + '\n');
  return 1;
}

/** Load errors as one error line; anything else as the compiler's errors. */
function loadFailed(e: unknown): OutputError[] {
  return e instanceof LoadError ? [{ message: e.message }] : toOutputErrors(e);
}

/** The `check` command (asynchronous only with -b, which reads bundles). */
export function checkCommand(argv: string[], io: IO): number | Promise<number> {
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
    // A capabilities file or version that cannot be read is a bad flag value, as in OPA (capabilitiesFlag.Set).
    const caps = str(args, 'capabilities');
    const badCaps = caps === undefined ? undefined : capabilitiesFlagProblem(caps);
    if (badCaps !== undefined) throw new UsageError(badCaps);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, CHECK_FLAGS));
  }
  const json = str(args, 'format') === 'json';
  const regoV1 = bool(args, 'rego-v1'); // OPA: --rego-v1 over --v0-compatible over --v1-compatible
  const v0 = !regoV1 && bool(args, 'v0-compatible');
  const strict = bool(args, 'strict');
  const ignore = sliceFlag(args, 'ignore');
  // -s/--schema and --capabilities: OPA's schema type checking and builtin limits (cli/eval-context.ts).
  const opts = { ...(str(args, 'schema') !== undefined ? { schema: str(args, 'schema')! } : {}), ...(str(args, 'capabilities') !== undefined ? { capabilities: str(args, 'capabilities')! } : {}) };
  const checks =
    opts.schema !== undefined || opts.capabilities !== undefined
      ? (modules: Module[]) => {
          const refused = parserCapabilityErrors(opts.capabilities, modules);
          return toOutputErrors({ errors: refused.length > 0 ? refused : extraChecks(opts, modules) });
        }
      : undefined;
  if (bool(args, 'bundle')) {
    return bundleSources(args.positionals, { v0, ignore, keepDefault: regoV1 })
      .then(({ files, data }) => {
        // rule/data conflicts come first (OPA's CheckRuleConflicts stage), then the other checks
        const extra = (modules: Module[]): OutputError[] => {
          const conflicts = pathConflicts(modules, data);
          return conflicts.length > 0 || !checks ? conflicts : checks(modules);
        };
        return checkFiles(files, v0, strict, extra, regoV1);
      })
      .then(
        (errors) => report(errors, json, maxErrors, io),
        (e: unknown) => report(loadFailed(e), json, maxErrors, io),
      );
  }
  let errors: OutputError[];
  try {
    const files = findRegoFiles(args.positionals, ignore).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
    errors = checkFiles(files, v0, strict, checks, regoV1);
  } catch (e) {
    errors = loadFailed(e);
  }
  return report(errors, json, maxErrors, io);
}
