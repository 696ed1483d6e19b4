// Output of the `regent run` REPL (cli/repl.ts), as OPA's REPL prints it:
//  * pretty results (OPA's presentation.Pretty): `undefined`; one row without
//    bindings and one expression (or only booleans) as indented JSON; otherwise a
//    table with box-drawing borders (tablewriter): a column per variable binding
//    (sorted), then the expressions (boolean ones only when there are no bindings),
//    cells as compact JSON cut at the pretty limit (80 characters) with `...`;
//  * partial evaluation tables (`unknown`) redrawn with the same borders;
//  * the banner, `help` (examples, commands, topics) and the help topics;
//  * Go's time.Duration text for the watch reload notice (`# reloaded files (took 1.2ms)`).
import type { ResultRow } from '../compiler/api.js';
import type { Value } from '../runtime/value/index.js';
import { toJSON } from './output.js';

/** Pretty text of a result set (ends with a newline). */
export function prettyRows(rows: ResultRow[], limit: number): string {
  if (rows.length === 0) return 'undefined\n';
  const first = rows[0]!;
  const noBindings = Object.keys(first.bindings).length === 0;
  if (rows.length === 1 && noBindings && (first.expressions.length === 1 || first.expressions.every((e) => typeof e.value === 'boolean')))
    return toJSON(first.expressions[0]!.value) + '\n';
  const vars = Object.keys(first.bindings).sort();
  const exprs = first.expressions.map((e, i) => ({ e, i })).filter(({ e }) => noBindings || typeof e.value !== 'boolean');
  const header = [...vars, ...exprs.map(({ e }) => e.text)];
  const cell = (v: Value | undefined): string => cut(toJSON(v ?? null, ''), limit);
  const body = rows.map((r) => [...vars.map((v) => cell(r.bindings[v])), ...exprs.map(({ i }) => cell(r.expressions[i]?.value))]);
  return boxTable(header, body);
}

function cut(text: string, limit: number): string {
  return limit > 0 && text.length > limit ? text.slice(0, limit) + '...' : text;
}

/** A table as OPA's tablewriter draws it: light box borders, centred header, left-aligned cells. */
export function boxTable(header: string[], rows: string[][]): string {
  const width = (s: string): number => [...s].length;
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const rule = (l: string, m: string, r: string): string => l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r;
  const center = (s: string, w: number): string => {
    const left = Math.floor((w - width(s)) / 2);
    return ' '.repeat(left) + s + ' '.repeat(w - width(s) - left);
  };
  const line = (cells: string[], fmt: (s: string, w: number) => string): string => '│ ' + widths.map((w, i) => fmt(cells[i] ?? '', w)).join(' │ ') + ' │';
  const left = (s: string, w: number): string => s + ' '.repeat(w - width(s));
  return [rule('┌', '┬', '┐'), line(header, center), rule('├', '┼', '┤'), ...rows.map((r) => line(r, left)), rule('└', '┴', '┘')].join('\n') + '\n';
}

/** A `+---+` / `| a | b |` table (cli/eval-partial.ts) redrawn with box-drawing borders. */
export function boxRows(ascii: string): string {
  const lines = ascii.replace(/\n$/, '').split('\n');
  const first = lines[0] ?? '';
  if (!first.startsWith('+')) return ascii;
  const cuts = [...first].flatMap((c, i) => (c === '+' ? [i] : []));
  const rules = lines.filter((l) => l.startsWith('+')).length;
  let seen = 0;
  const out = lines.map((line) => {
    const chars = [...line];
    if (line.startsWith('+')) {
      seen++;
      const [l, m, r] = seen === 1 ? '┌┬┐' : seen === rules ? '└┴┘' : '├┼┤';
      return chars.map((c, i) => (c === '-' ? '─' : i === 0 ? l : i === chars.length - 1 ? r : cuts.includes(i) ? m : c)).join('');
    }
    return chars.map((c, i) => (cuts.includes(i) && c === '|' ? '│' : c)).join('');
  });
  return out.join('\n') + '\n';
}

/** The banner printed when the REPL starts (followed by an empty line, as OPA's Fprintln). */
export function banner(version: string): string {
  return `Regent ${version}\n\nRun 'help' to see a list of commands.\n\n`;
}

const EXAMPLES: [string, string][] = [
  ['data', 'show all documents'],
  ['data[x] = _', 'show all top level keys'],
  ['data.system.version', 'drill into specific document'],
];

/** Commands in the order `help` lists them: statements first, then the REPL commands. */
export const COMMAND_HELP: [string, string][] = [
  ['<stmt>', 'evaluate the statement'],
  ['package <term>', 'change active package'],
  ['import <term>', 'add import to active module'],
  ['show', 'show active module definition'],
  ['show debug', 'show REPL settings'],
  ['unset <var>', 'unset rules in currently active module'],
  ['unset-package <var>', 'unset packages in currently active module'],
  ['json', 'set output format to JSON'],
  ['pretty', 'set output format to pretty'],
  ['pretty-limit', 'set pretty value output limit'],
  ['trace [mode]', 'toggle full trace or specific mode'],
  ['notes', 'toggle notes trace'],
  ['fails', 'toggle fails trace'],
  ['metrics', 'toggle metrics'],
  ['instrument', 'toggle instrumentation'],
  ['profile', 'toggle profiler and turns off trace'],
  ['types', 'toggle type information'],
  ['unknown [ref-1 [ref-2 [...]]]', 'toggle partial evaluation mode'],
  ['strict-builtin-errors', 'toggle strict built-in error mode'],
  ['dump [path]', 'dump raw data in storage'],
  ['help [topic]', 'print this message'],
  ['target [mode]', 'set the runtime to exercise {rego,wasm} (default rego)'],
  ['exit', 'exit out of shell (or ctrl+d)'],
  ['ctrl+l', 'clear the screen'],
];

export const TOPICS: Record<string, [string, string]> = {
  input: ['how to set input document', 'Input'],
  partial: ['how to use partial evaluation', 'Partial Evaluation'],
};

/** `help` with no topic: examples, commands, additional topics. */
export function helpText(prompt: string): string {
  const exWidth = Math.max(...EXAMPLES.map(([e]) => e.length)) + 1;
  const names = [...COMMAND_HELP.map(([n]) => n), ...Object.keys(TOPICS).map((t) => 'help ' + t)];
  const w = Math.max(...names.map((n) => n.length));
  const lines = ['', 'Examples', '========', '', ...EXAMPLES.map(([e, c]) => `${prompt}${e.padEnd(exWidth)} # ${c}`), ''];
  lines.push('Commands', '========', '', ...COMMAND_HELP.map(([n, d]) => `${n.padStart(w)} : ${d}`), '');
  lines.push('Additional Topics', '=================', '', ...Object.entries(TOPICS).map(([t, [d]]) => `${('help ' + t).padStart(w)} : ${d}`), '');
  return lines.join('\n') + '\n';
}

const TOPIC_TEXT: Record<string, string> = {
  input: `The "input" document holds the values a query is asked about. In the REPL,
it is whatever the rules of package repl.input define.

For example:

	# Switch to the repl.input package and define a document in it.
	> package repl.input
	> params := {"method": "POST", "path": "/some/path"}

	# Switch to another package and import it.
	> package example
	> import input.params

	# A rule that reads the input, and its value.
	> is_post if params.method == "POST"
	> is_post
	true`,
  partial: `Partial evaluation evaluates a query with some documents (input, or refs
under data) left unknown, and prints the queries that remain: each is true
exactly when the unknown documents make it true.

For example:

	> allowed_methods := ["GET", "HEAD"]

	# Treat the input document as unknown, and partially evaluate a query.
	> unknown input
	> method := allowed_methods[i]; input.method == method

	# 'unknown' with no arguments turns partial evaluation off.
	> unknown`,
};

/** `help <topic>`, or undefined for an unknown topic. */
export function topicText(topic: string): string | undefined {
  const t = TOPICS[topic];
  const body = TOPIC_TEXT[topic];
  if (!t || body === undefined) return undefined;
  return `\n${t[1]}\n${'='.repeat(t[1].length)}\n\n${body}\n\n`;
}

/** Go's time.Duration String() for a duration in milliseconds (`1.5s`, `2.345ms`, `870µs`). */
export function goDuration(ms: number): string {
  const ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const fmt = (v: number, unit: string): string => `${Number(v.toFixed(9)).toString()}${unit}`;
  if (ns < 1e3) return `${ns}ns`;
  if (ns < 1e6) return fmt(ns / 1e3, 'µs');
  if (ns < 1e9) return fmt(ns / 1e6, 'ms');
  return fmt(ns / 1e9, 's');
}
