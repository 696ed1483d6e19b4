// `regent fmt [-w] [-l] [-d|--diff] [--fail] [--v0-compatible] [--v0-v1] [PATH…]`,
// as `opa fmt`: without paths, format stdin to stdout; with paths (files or
// directories, .rego files found recursively), print each formatted file, or with
// -w overwrite it, -l list the files whose formatting would change, -d print a
// line diff of the change. --fail exits 2 when a file would change. Errors print
// to stderr (exit 1 for stdin, 2 for files, as OPA). Modes, as OPA's: the default
// reads and prints Rego v1; --v0-compatible reads and prints Rego v0;
// --v0-v1 (old name --rego-v1) reads v0 (v1 with --v1-compatible) and prints v1
// with `import rego.v1`, which both accept. The printer is compiler/ast/fmt-module.ts;
// the result is re-parsed in the output's version (--check-result, default on).
import { readFileSync, writeFileSync } from 'node:fs';
import { formatModuleSource, type FormatMode } from '../compiler/ast/fmt-module.js';
import { parseModule } from '../compiler/index.js';
import { RegoErrors } from '../compiler/source/diagnostics.js';
import { deprecatedBuiltinErrors } from '../compiler/strict/index.js';
import { UsageError, bool, formatHelp, parseArgs, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import { LoadError, findRegoFiles } from './loader.js';
import { errorsText, toOutputErrors, type IO } from './output.js';

export const FMT_FLAGS: FlagSpec[] = [
  { name: 'write', short: 'w', type: 'boolean', description: 'overwrite the original source file' },
  { name: 'list', short: 'l', type: 'boolean', description: 'list all files who would change when formatted' },
  { name: 'diff', short: 'd', type: 'boolean', description: 'only display a diff of the changes' },
  { name: 'fail', type: 'boolean', description: 'non zero exit code on reformat' },
  { name: 'v0-v1', type: 'boolean', description: 'format module(s) to be compatible with both Rego v0 and v1' },
  { name: 'rego-v1', type: 'boolean', description: 'deprecated name of --v0-v1' },
  { name: 'v0-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors prior to the OPA v1.0 release' },
  { name: 'v1-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors that are enabled by default in OPA v1.0' },
  { name: 'check-result', type: 'boolean', description: 'assert that the formatted code is valid and can be successfully parsed (default true)' },
  { name: 'drop-v0-imports', type: 'boolean', description: "drop v0 imports from the formatted code, such as 'rego.v1' and 'future.keywords'" },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for fmt' },
];

const USAGE = 'regent fmt [flags] [path [...]]';
const DESCRIPTION = `Format Rego source files. Without paths, stdin is formatted to stdout.

  regent fmt                  v1 Rego is formatted to v1 (v0 Rego is rejected)
  regent fmt --v0-compatible  v0 Rego is formatted to v0 (v1 Rego is rejected)
  regent fmt --v0-v1          v0 Rego is formatted to be compatible with v0 and v1
  regent fmt --v0-v1 --v1-compatible  the same from v1 Rego`;

export interface FormatOptions {
  /** Read and print Rego v0 (`--v0-compatible`). */
  v0Compatible?: boolean;
  /** Print v1 with `import rego.v1`, compatible with v0 and v1 (`--v0-v1`); reads v0 unless `v1Compatible`. */
  v0v1?: boolean;
  /** With `v0v1`: read Rego v1. */
  v1Compatible?: boolean;
  /** Drop `import rego.v1` / `future.keywords` imports (v1 output). */
  dropV0Imports?: boolean;
  /** Re-parse the output and throw if it does not parse (default true). */
  checkResult?: boolean;
}

export class FormatError extends Error {}

/** Format Rego source text. Throws RegoErrors for parse errors. */
export function formatSource(text: string, file: string, opts: FormatOptions = {}): string {
  const mode: FormatMode = opts.v0v1 ? 'v0-v1' : opts.v0Compatible ? 'v0' : 'v1';
  const readV0 = opts.v0Compatible === true || (opts.v0v1 === true && opts.v1Compatible !== true);
  const m = parseModule(text, file, { v0Compatible: readV0 });
  if (mode !== 'v0') {
    // OPA's CheckRegoV1: Rego v1 has no deprecated builtins
    const errs = deprecatedBuiltinErrors(m);
    if (errs.length > 0) throw new RegoErrors(errs);
  }
  const out = formatModuleSource(m, text, { mode, dropV0Imports: opts.dropV0Imports });
  if (opts.checkResult !== false) {
    try {
      parseModule(out, 'formatted', { v0Compatible: mode === 'v0' });
    } catch (e) {
      throw new FormatError(`${file} was successfully formatted, but the result is invalid: ${errorsText(toOutputErrors(e))}\n\n` +
        'To inspect the formatted Rego, you can turn off this check with --check-result=false.');
    }
  }
  return out;
}

function errorText(e: unknown): string {
  return e instanceof FormatError || e instanceof LoadError ? e.message : errorsText(toOutputErrors(e));
}

/** The `fmt` command. */
export function fmtCommand(argv: string[], io: IO): number {
  let args;
  try {
    args = parseArgs(argv, FMT_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, FMT_FLAGS) + '\n');
      return 0;
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, FMT_FLAGS));
  }
  const opts: FormatOptions = {
    v0Compatible: bool(args, 'v0-compatible'),
    v0v1: bool(args, 'v0-v1') || bool(args, 'rego-v1'),
    v1Compatible: bool(args, 'v1-compatible'),
    dropV0Imports: bool(args, 'drop-v0-imports'),
    checkResult: !argv.some((a) => a === '--no-check-result' || a === '--check-result=false'),
  };
  if (args.positionals.length === 0) {
    try {
      io.out(formatSource(io.stdin ? io.stdin() : '', 'stdin', opts));
      return 0;
    } catch (e) {
      io.err(errorText(e) + '\n');
      return 1;
    }
  }
  let files: string[];
  try {
    files = findRegoFiles(args.positionals).filter((f) => f.endsWith('.rego'));
  } catch (e) {
    io.err(errorText(e) + '\n');
    return 1;
  }
  const [list, diff, write, fail] = [bool(args, 'list'), bool(args, 'diff'), bool(args, 'write'), bool(args, 'fail')];
  for (const file of files) {
    let text: string;
    let formatted: string;
    try {
      text = readFileSync(file, 'utf8');
      formatted = formatSource(text, file, opts);
    } catch (e) {
      io.err(`failed to format Rego source file: ${errorText(e)}\n`);
      return 2;
    }
    const changed = text !== formatted;
    if (fail && !list && !diff && changed) {
      io.err('unexpected diff\n');
      return 2;
    }
    if (list || diff) {
      if (!changed) continue;
      io.out(list ? file + '\n' : lineDiff(text, formatted, file) + '\n');
      if (fail) {
        io.err('unexpected diff\n');
        return 2;
      }
      continue;
    }
    if (write) {
      if (changed) writeFileSync(file, formatted);
    } else io.out(formatted);
  }
  return 0;
}

// ---------------------------------------------------------------- diff (-d)
// A unified line diff: `--- file` / `+++ file (formatted)` headers, then hunks with
// three lines of context. Longest-common-subsequence over lines (quadratic; files
// too large for that fall back to one replace-all hunk).

type Op = { k: ' ' | '-' | '+'; line: string; a: number; b: number };

const MAX_CELLS = 25_000_000;
const CONTEXT = 3;

function splitLines(s: string): string[] {
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function diffOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    return [...a.map((line, i): Op => ({ k: '-', line, a: i, b: 0 })), ...b.map((line, j): Op => ({ k: '+', line, a: n, b: j }))];
  }
  // lcs[i][j] = LCS length of a[i..] and b[j..]
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ k: ' ', line: a[i++]!, a: i - 1, b: j++ });
    else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ k: '-', line: a[i++]!, a: i - 1, b: j });
    else ops.push({ k: '+', line: b[j++]!, a: i, b: j - 1 });
  }
  return ops;
}

/** Unified diff of `before` → `after`; '' when equal. */
export function lineDiff(before: string, after: string, file: string): string {
  if (before === after) return '';
  const ops = diffOps(splitLines(before), splitLines(after));
  const out = [`--- ${file}`, `+++ ${file} (formatted)`];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.k === ' ') k++;
    if (k >= ops.length) break;
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    // extend the hunk while changes are within 2*CONTEXT lines of each other
    for (let q = k; q < ops.length; q++) {
      if (ops[q]!.k !== ' ') end = q;
      else if (q - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(ops.length, end + CONTEXT + 1);
    const hunk = ops.slice(start, stop);
    const aLines = hunk.filter((o) => o.k !== '+').length;
    const bLines = hunk.filter((o) => o.k !== '-').length;
    const aStart = hunk[0]!.a + (aLines ? 1 : 0);
    const bStart = hunk[0]!.b + (bLines ? 1 : 0);
    out.push(`@@ -${aStart},${aLines} +${bStart},${bLines} @@`);
    for (const o of hunk) out.push(o.k + o.line);
    k = stop;
  }
  return out.join('\n');
}
