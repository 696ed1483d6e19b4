// `regent parse [--format pretty|json|internal] [--v0-compatible] [--json-include …] FILE`:
// parse one Rego module and print its AST. `json` is OPA's JSON AST
// (compiler/ast/opa-json.ts): locations only with `--json-include locations`,
// comments unless `-comments`. `internal` is regent's own AST as plain JSON (exact
// numbers, `loc` only with locations). `pretty` is an indented tree of the nodes.
// `--dump-passes` / `--dump-ir` compile the module and print pass dumps / the IR.
// Parse errors print like `opa parse` errors: JSON `{"errors":[…]}` or error lines.
import { existsSync, readFileSync } from 'node:fs';
import { moduleToJSON, parseModule, stringifyOpaJSON } from '../compiler/index.js';
import { BigNum, RObject, RSet, formatNumber } from '../runtime/value/index.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import { errorsJSON, errorsText, quote, toOutputErrors, type IO } from './output.js';
import { dumpPipeline } from './parse-dump.js';

export const PARSE_FLAGS: FlagSpec[] = [
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json', 'internal'], default: 'pretty', description: 'set output format' },
  { name: 'v0-compatible', type: 'boolean', description: 'parse Rego v0 syntax' },
  { name: 'json-include', type: 'string', repeatable: true, metavar: 'WHAT', description: "include or exclude optional JSON elements: locations, comments (e.g. locations,-comments)" },
  { name: 'dump-passes', type: 'boolean', description: 'compile the module and print what each compiler pass produced' },
  { name: 'dump-ir', type: 'boolean', description: 'compile the module and print its IR listing' },
  { name: 'query', short: 'q', type: 'string', metavar: 'QUERY', description: 'with --dump-ir: also print the plan of this query' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for parse' },
];

const USAGE = 'regent parse [flags] <path>';
const DESCRIPTION = 'Parse a Rego source file and print its AST.';

export interface AstJSONOptions {
  locations?: boolean;
  indent?: string;
}

/**
 * JSON text of an AST node. Plain objects keep their key order; BigNums print
 * exactly; Value collections (should a node hold one) print as JSON.
 */
export function astToJSON(node: unknown, opts: AstJSONOptions = {}, cur = ''): string {
  const indent = opts.indent ?? '  ';
  if (node === null || node === undefined) return 'null';
  switch (typeof node) {
    case 'boolean':
      return String(node);
    case 'number':
      return Number.isFinite(node) ? formatNumber(node) : 'null';
    case 'bigint':
      return node.toString();
    case 'string':
      return quote(node);
    case 'function':
    case 'symbol':
      return 'null';
  }
  if (node instanceof BigNum) return formatNumber(node);
  const inner = cur + indent;
  const wrap = (items: string[], open: string, close: string): string =>
    items.length === 0 ? open + close : `${open}\n${items.map((s) => inner + s).join(',\n')}\n${cur}${close}`;
  if (Array.isArray(node)) return wrap(node.map((x) => astToJSON(x, opts, inner)), '[', ']');
  if (node instanceof RSet) return wrap(node.values().map((x) => astToJSON(x, opts, inner)), '[', ']');
  if (node instanceof RObject)
    return wrap(node.entries().map(([k, v]) => `${quote(typeof k === 'string' ? k : astToJSON(k, { indent: '' }))}: ${astToJSON(v, opts, inner)}`), '{', '}');
  const entries = Object.entries(node as Record<string, unknown>).filter(([k, v]) => v !== undefined && (opts.locations || k !== 'loc'));
  return wrap(entries.map(([k, v]) => `${quote(k)}: ${astToJSON(v, opts, inner)}`), '{', '}');
}

/** An indented tree: one line per node (`kind`/`type` plus scalar fields). */
export function astToTree(node: unknown, depth = 0, label = ''): string {
  const pad = '  '.repeat(depth);
  const name = label ? `${label}: ` : '';
  if (node === null || typeof node !== 'object' || node instanceof BigNum) {
    const text = node instanceof BigNum || typeof node === 'number' ? formatNumber(node as number) : JSON.stringify(node) ?? 'undefined';
    return `${pad}${name}${text}\n`;
  }
  if (Array.isArray(node)) {
    if (node.length === 0) return '';
    return `${pad}${name}[${node.length}]\n` + node.map((x) => astToTree(x, depth + 1)).join('');
  }
  const o = node as Record<string, unknown>;
  const kind = typeof o.kind === 'string' ? o.kind : typeof o.type === 'string' ? o.type : 'node';
  const scalars: string[] = [];
  const children: [string, unknown][] = [];
  for (const [k, v] of Object.entries(o)) {
    if (k === 'kind' || k === 'loc' || v === undefined) continue;
    if (k === 'type' && v === kind) continue;
    if (v === null || typeof v !== 'object' || v instanceof BigNum) scalars.push(`${k}=${v instanceof BigNum ? formatNumber(v) : JSON.stringify(v)}`);
    else children.push([k, v]);
  }
  const loc = o.loc as { row?: number; col?: number } | undefined;
  const at = loc && typeof loc.row === 'number' ? ` @${loc.row}:${loc.col}` : '';
  let out = `${pad}${name}${kind}${scalars.length ? ' ' + scalars.join(' ') : ''}${at}\n`;
  for (const [k, v] of children) out += astToTree(v, depth + 1, k);
  return out;
}

/** The `parse` command. */
export function parseCommand(argv: string[], io: IO): number {
  let args;
  try {
    args = parseArgs(argv, PARSE_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, PARSE_FLAGS) + '\n');
      return 0;
    }
    if (args.positionals.length !== 1) throw new UsageError('specify exactly one file to parse');
    const bad = list(args, 'json-include').flatMap((s) => s.split(',')).filter((s) => !['locations', 'comments'].includes(s.replace(/^-/, '')) && s !== '');
    if (bad.length) throw new UsageError(`unknown --json-include value(s): ${bad.join(', ')}`);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, PARSE_FLAGS));
  }
  const format = str(args, 'format') ?? 'pretty';
  const file = args.positionals[0]!;
  const includes = list(args, 'json-include').flatMap((s) => s.split(','));
  const locations = includes.includes('locations');
  const comments = !includes.includes('-comments');
  try {
    if (!existsSync(file)) throw new Error(`stat ${file}: no such file or directory`);
    const module = parseModule(readFileSync(file, 'utf8'), file, { v0Compatible: bool(args, 'v0-compatible') });
    if (bool(args, 'dump-passes') || bool(args, 'dump-ir')) {
      const opts = { passes: bool(args, 'dump-passes'), ir: bool(args, 'dump-ir'), v0Compatible: bool(args, 'v0-compatible'), query: str(args, 'query') };
      dumpPipeline(module, opts, io.out);
      return 0;
    }
    if (format === 'json') io.out(stringifyOpaJSON(moduleToJSON(module, { locations, comments })) + '\n');
    else if (format === 'internal') io.out(astToJSON(module, { locations }) + '\n');
    else io.out(astToTree(module));
    return 0;
  } catch (e) {
    const errs = toOutputErrors(e);
    if (format !== 'pretty') io.out(errorsJSON(errs) + '\n');
    else io.err(errorsText(errs) + '\n');
    return 1;
  }
}
