// `regent exec [--decision PATH] [-b BUNDLE …] [--stdin-input] [--fail | --fail-defined
// | --fail-non-empty] <path> [<path> …]`: evaluate one decision per input file, as
// `opa exec` does. Paths are walked recursively; files ending in .json, .yaml or
// .yml are inputs (others are skipped silently, as OPA's parser table does). The
// output is OPA's exec JSON report, printed once at the end:
//   {"result": [{"path": "x.json", "result": <value>}, …]}
// An undefined decision is reported as the SDK's error
//   {"path": …, "error": {"code": "opa_undefined_error", "message": "/pkg/p decision was undefined"}}
// and an evaluation error as {"path": …, "error": {code, message, location}}. Fields come
// in the order of OPA's exec tests (path first); OPA ≥ 1.x releases whose result
// struct was reordered for alignment print path last — the same JSON object.
// Without --decision the configured default decision is used (`-c config.yaml`'s
// `default_decision`, else OPA's `/system/main`). Bundles (`-b`, directories or
// .tar.gz) load as `regent eval -b` loads them; no plugins run (no decision_id, as
// OPA without decision logging). Failures under --fail* print OPA's log line
// `{"err":"exec error: there were N failures and M errors …","level":"error",…}`
// on stderr and exit 1.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { loadYAML } from '../runtime/value/yaml-lib.js';
import { compile } from '../compiler/index.js';
import { RSet, type Value } from '../runtime/value/index.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import { loadAll, parseInput } from './loader.js';
import { errorsText, toJSON, toOutputErrors, type IO } from './output.js';
import { parseDuration } from './eval.js';

export const EXEC_FLAGS: FlagSpec[] = [
  { name: 'bundle', short: 'b', type: 'string', repeatable: true, metavar: 'PATH', description: 'set bundle file(s) or directory path(s). This flag can be repeated.' },
  { name: 'config-file', short: 'c', type: 'string', metavar: 'FILE', description: 'set path of configuration file (only default_decision is read)' },
  { name: 'decision', type: 'string', metavar: 'PATH', description: 'set decision to evaluate' },
  { name: 'fail', type: 'boolean', description: 'exits with non-zero exit code on undefined/empty result and errors' },
  { name: 'fail-defined', type: 'boolean', description: 'exits with non-zero exit code on defined/non-empty result and errors' },
  { name: 'fail-non-empty', type: 'boolean', description: 'exits with non-zero exit code on non-empty set (array) results' },
  { name: 'format', short: 'f', type: 'string', choices: ['json'], default: 'json', description: 'set output format' },
  { name: 'stdin-input', short: 'I', type: 'boolean', description: 'read input document from stdin rather than a static file' },
  { name: 'timeout', type: 'string', metavar: 'DURATION', description: 'set exec timeout with a Go-style duration, such as \'5m 30s\'. (default unlimited)' },
  { name: 'v0-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors prior to the OPA v1.0 release' },
  { name: 'v1-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors that are enabled by default in OPA v1.0' },
  { name: 'help', short: 'h', type: 'boolean', description: 'help for exec' },
];

const USAGE = 'regent exec <path> [<path> [...]] [flags]';
const DESCRIPTION = `Execute against input files.

The 'exec' command executes Regent against one or more input files. If the paths
refer to directories, Regent will execute against files contained inside those
directories, recursively. By default the "default decision" (/system/main, or
default_decision in the -c configuration) is evaluated; --decision overrides it,
e.g. regent exec --decision /foo/bar/baz ...`;

const STDIN_PATH = '--stdin-input';
const INPUT_EXT = new Set(['.json', '.yaml', '.yml']);

/** One entry of the report: path, then error or result. */
export interface ExecResult {
  path: string;
  error?: { code?: string; message: string; location?: unknown };
  result?: Value;
}

/** Files under the roots, as Go's filepath.Walk lists them (lexical order). */
function walkFiles(root: string): string[] {
  if (!existsSync(root)) throw new Error(`lstat ${root}: no such file or directory`);
  if (!statSync(root).isDirectory()) return [root];
  return readdirSync(root)
    .sort()
    .flatMap((name) => walkFiles(join(root, name)));
}

/** The decision path as OPA's SDK takes it: `/a/b`, `a/b` and `a.b`-free slashes. */
export function decisionSegments(decision: string): string[] {
  return decision.split('/').filter((s) => s !== '');
}

function defaultDecision(configFile: string | undefined): string {
  if (configFile === undefined) return '/system/main';
  const doc = loadYAML(readFileSync(configFile, 'utf8')) as { default_decision?: unknown } | null;
  return typeof doc?.default_decision === 'string' ? doc.default_decision : '/system/main';
}

function logError(io: IO, err: string): void {
  io.err(JSON.stringify({ err, level: 'error', msg: 'Unexpected error.', time: new Date().toISOString() }) + '\n');
}

/** The `exec` command. */
export async function execCommand(argv: string[], io: IO): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, EXEC_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, EXEC_FLAGS) + '\n');
      return 0;
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, EXEC_FLAGS));
  }
  const stdin = bool(args, 'stdin-input');
  if (!stdin && args.positionals.length === 0) {
    logError(io, 'requires at least 1 path arg, or the --stdin-input flag');
    return 1;
  }
  const fail = bool(args, 'fail');
  const failDefined = bool(args, 'fail-defined');
  const failNonEmpty = bool(args, 'fail-non-empty');
  if ([fail, failDefined, failNonEmpty].filter(Boolean).length > 1) {
    logError(io, 'exec error: specify --fail, --fail-defined, or --fail-non-empty but not more than one');
    return 1;
  }
  let decide: (input: Value) => Value | undefined;
  let decision: string;
  const v0 = bool(args, 'v0-compatible');
  try {
    decision = str(args, 'decision') ?? defaultDecision(str(args, 'config-file'));
    const t = str(args, 'timeout');
    const deadline = t !== undefined && parseDuration(t) > 0 ? Date.now() + parseDuration(t) : undefined;
    const loaded = await loadAll([], list(args, 'bundle'), { v0Compatible: v0 });
    const policy = compile(loaded.modules, { v0Compatible: v0 || loaded.v0 });
    const run = policy.prepareDecision(decisionSegments(decision));
    decide = (input) => run({ input, data: loaded.data, ...(deadline !== undefined ? { deadline } : {}) });
  } catch (e) {
    logError(io, `runtime error: ${errorsText(toOutputErrors(e))}`);
    return 1;
  }
  const results: ExecResult[] = [];
  let failures = 0;
  let errors = 0;
  const anyFail = fail || failDefined || failNonEmpty;
  const store = (input: Value, path: string): void => {
    let value: Value | undefined;
    try {
      value = decide(input);
    } catch (e) {
      const err = toOutputErrors(e)[0]!;
      results.push({ path, error: { ...(err.code ? { code: err.code } : {}), message: err.message, ...(err.location ? { location: err.location } : {}) } });
      if (failDefined || failNonEmpty) errors++;
      return;
    }
    if (value === undefined) {
      results.push({ path, error: { code: 'opa_undefined_error', message: `${decision} decision was undefined` } });
      if (fail) errors++;
      return;
    }
    results.push({ path, result: value });
    if (failDefined) failures++;
    if (failNonEmpty && !((Array.isArray(value) && value.length === 0) || (value instanceof RSet && value.size === 0))) failures++;
  };
  try {
    if (stdin) {
      const input = parseInput(io.stdin?.() ?? '');
      if (input === null) throw new Error('cannot execute on empty input; please enter valid json or yaml when using the --stdin-input flag');
      store(input, STDIN_PATH);
    }
    for (const root of args.positionals) {
      for (const file of walkFiles(root)) {
        if (!INPUT_EXT.has(extname(file))) continue;
        let input: Value;
        try {
          input = parseInput(readFileSync(file, 'utf8'));
        } catch (e) {
          results.push({ path: file, error: { message: e instanceof Error ? e.message : String(e) } });
          if (anyFail) errors++;
          continue;
        }
        store(input, file);
      }
    }
  } catch (e) {
    logError(io, `exec error: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  io.out(toJSON({ result: results }) + '\n');
  if (anyFail && (failures > 0 || errors > 0)) {
    const flag = fail ? '--fail' : failDefined ? '--fail-defined' : '--fail-non-empty';
    logError(io, `exec error: there were ${failures} failures and ${errors} errors counted in the results list, and ${flag} is set`);
    return 1;
  }
  return 0;
}
