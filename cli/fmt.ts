// `regent fmt [-w] [-l] [-d|--diff] [--fail] [--v0-compatible] [--rego-v1] [PATH…]`,
// as `opa fmt`: without paths, format stdin to stdout; with paths (files or
// directories, .rego files found recursively), print each formatted file, or with
// -w overwrite it, -l list the files whose formatting would change, -d print a
// line diff of the change. --fail exits 2 when a file would change. Errors print
// to stderr (exit 1 for stdin, 2 for files, as OPA). Formatting is the canonical v1
// printer (compiler/ast/print.ts); with --v0-compatible or --rego-v1 the input is
// read as Rego v0 and printed in v1 syntax with `import rego.v1` added, which both
// v0 and v1 accept. The result is re-parsed to check it (--check-result, default on).
import { readFileSync, writeFileSync } from 'node:fs';
import type { Import, Module } from '../compiler/ast/nodes.js';
import { formatModule } from '../compiler/ast/print.js';
import { parseModule } from '../compiler/index.js';
import { UsageError, bool, formatHelp, parseArgs, type FlagSpec } from './args.js';
import { LoadError, findRegoFiles } from './loader.js';
import { errorsText, toOutputErrors, type IO } from './output.js';

export const FMT_FLAGS: FlagSpec[] = [
  { name: 'write', short: 'w', type: 'boolean', description: 'overwrite the original source file' },
  { name: 'list', short: 'l', type: 'boolean', description: 'list all files who would change when formatted' },
  { name: 'diff', short: 'd', type: 'boolean', description: 'only display a diff of the changes' },
  { name: 'fail', type: 'boolean', description: 'non zero exit code on reformat' },
  { name: 'v0-compatible', type: 'boolean', description: 'read Rego v0 and format it to be compatible with v0 and v1' },
  { name: 'rego-v1', type: 'boolean', description: 'format module(s) to be compatible with both Rego v0 and v1' },
  { name: 'v1-compatible', type: 'boolean', description: 'read Rego v1 (the default)' },
  { name: 'check-result', type: 'boolean', description: 'assert that the formatted code is valid (default true; --no-check-result)' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for fmt' },
];

const USAGE = 'regent fmt [flags] [path [...]]';
const DESCRIPTION = 'Format Rego source files. Without paths, stdin is formatted to stdout.';

export interface FormatOptions {
  /** Read Rego v0; the output gets `import rego.v1` so v0 and v1 both accept it. */
  v0Compatible?: boolean;
  /** Re-parse the output and throw if it does not parse (default true). */
  checkResult?: boolean;
}

export class FormatError extends Error {}

function hasRegoV1Import(m: Module): boolean {
  return m.imports.some((i) => i.path.kind === 'ref' && i.path.head.kind === 'var' && i.path.head.name === 'rego' &&
    i.path.path.length === 1 && i.path.path[0]!.kind === 'string' && i.path.path[0]!.value === 'v1');
}

function withRegoV1Import(m: Module): Module {
  if (hasRegoV1Import(m)) return m;
  const l = { ...m.package.loc, offset: m.package.loc.offset + 1 };
  const imp: Import = {
    kind: 'import',
    path: { kind: 'ref', head: { kind: 'var', name: 'rego', loc: l }, path: [{ kind: 'string', value: 'v1', loc: l }], loc: l },
    loc: l,
  };
  return { ...m, imports: [imp, ...m.imports] };
}

/** Format Rego source text. Throws RegoErrors for parse errors. */
export function formatSource(text: string, file: string, opts: FormatOptions = {}): string {
  const v0 = opts.v0Compatible === true;
  let m = parseModule(text, file, { v0Compatible: v0 });
  if (v0) m = withRegoV1Import(m);
  const out = formatModule(m);
  if (opts.checkResult !== false) {
    try {
      parseModule(out, 'formatted', { v0Compatible: v0 });
    } catch (e) {
      throw new FormatError(`${file} was successfully formatted, but the result is invalid: ${errorsText(toOutputErrors(e))}`);
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
    io.err(`error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, FMT_FLAGS)}\n`);
    return 2;
  }
  const opts: FormatOptions = {
    v0Compatible: bool(args, 'v0-compatible') || bool(args, 'rego-v1'),
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
