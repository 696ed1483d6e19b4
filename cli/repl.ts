// `regent run [paths…]` without --server: the interactive REPL, as `opa run` starts it
// (OPA's v1/repl/repl.go). A banner, then a `> ` prompt per statement (`| ` while a
// statement that does not parse yet is being continued: an empty line ends it and
// reports the parse error). On end of input it asks `Do you want to exit ([y]/n)? `
// (end of input again, an empty answer or `y` exits), as OPA's liner loop does.
// Commands (only at the start of a statement): show [debug], unset, unset-package,
// json, pretty, pretty-limit, trace [mode], notes, fails, strict-builtin-errors,
// dump [path], help [topic], unknown [refs] (partial evaluation, as `eval --partial`),
// exit; metrics, instrument, profile, types and target are accepted (show debug
// reports them) and print a note that Regent's REPL does not implement them. Everything else is a statement (cli/repl-session.ts).
// Output goes to stdout, errors included (OPA's REPL writes both to its output);
// `print()` too. `-w/--watch` reloads the paths on change (cli/run-watch.ts) and
// prints `# reloaded files (took …)` as OPA does. On a terminal, lines are edited with
// node:readline, ctrl+c abandons the current line, and history persists in ~/.regent_history.
import { createInterface } from 'node:readline';
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorsJSON, errorsText, resultJSON, toJSON, toOutputErrors, type IO } from './output.js';
import { ReplSession, type ExplainSetting } from './repl-session.js';
import { banner, boxRows, goDuration, helpText, prettyRows, topicText } from './repl-output.js';
import { watchPaths } from './run-watch.js';
import { splitPrefix } from './loader.js';

export interface ReplOptions {
  paths: string[];
  bundles: boolean;
  v0: boolean;
  format: 'json' | 'pretty';
  watch: boolean;
  version: string;
}

const EXIT_PROMPT = 'Do you want to exit ([y]/n)? ';
const UNSUPPORTED = new Set(['metrics', 'instrument', 'profile', 'types', 'target']);
const COMMANDS = new Set(['dump', 'json', 'show', 'unset', 'unset-package', 'pretty', 'pretty-limit', 'trace', 'notes', 'fails', 'strict-builtin-errors', 'help', 'exit', 'unknown', ...UNSUPPORTED]);
const UNKNOWN_USAGE = "usage: unknown <input/data reference> [<input/data reference> [...]] (hint: try 'input')";

class Stop {}

/** One REPL: the session plus output settings; `oneShot` handles one input line. */
export class Repl {
  readonly session: ReplSession;
  format: 'json' | 'pretty';
  prettyLimit = 80;
  strictBuiltinErrors = false;
  explain: ExplainSetting = 'off';
  /** Refs `unknown` set: queries are partially evaluated while there are any. */
  unknowns: string[] = [];
  private toggles: Record<string, boolean> = {};
  private buffer: string[] = [];

  constructor(opts: ReplOptions, private readonly out: (text: string) => void) {
    this.session = new ReplSession(opts);
    this.format = opts.format;
  }

  prompt(): string {
    return this.buffer.length > 0 ? '| ' : '> ';
  }

  /** Handle one line; false when the REPL should exit. */
  async oneShot(line: string): Promise<boolean> {
    try {
      if (this.buffer.length === 0) {
        const fields = line.trim().split(/\s+/).filter((f) => f !== '');
        const op = fields[0]?.toLowerCase();
        if (op !== undefined && COMMANDS.has(op)) {
          await this.command(op, fields.slice(1));
          return true;
        }
        this.buffer.push(line);
        await this.evalBuffer(false);
        return true;
      }
      this.buffer.push(line);
      if (line === '') await this.evalBuffer(true);
    } catch (e) {
      if (e instanceof Stop) return false;
      this.out(message(e) + '\n');
    }
    return true;
  }

  /** Evaluate the buffered statement; an incomplete single line stays buffered. */
  private async evalBuffer(multi: boolean): Promise<void> {
    const text = this.buffer.join('\n');
    if (text.trim() === '') {
      this.buffer = [];
      return;
    }
    let result;
    try {
      result = this.session.statement(text);
    } catch (e) {
      if (!multi && isParseFailure(e)) return; // keep buffering, as OPA does
      this.buffer = [];
      throw e;
    }
    this.buffer = [];
    if (result.kind === 'defined' && this.format !== 'json') this.out(result.messages.map((m) => m + '\n').join(''));
    if (result.kind === 'query') await (this.unknowns.length > 0 ? this.partial(result.prepared) : this.evaluate(result.prepared));
  }

  /** Partial evaluation (`unknown …` set), printed as `regent eval --partial` does, tables boxed as OPA's REPL. */
  private async partial(p: ReturnType<ReplSession['prepare']>): Promise<void> {
    const { partialEval } = await import('../compiler/partial/index.js');
    const { renderPartial } = await import('./eval-partial.js');
    let outcome: Parameters<typeof renderPartial>[0];
    try {
      const r = partialEval(p.policy, p.query, { unknowns: this.unknowns, data: p.data, ...(p.input !== undefined ? { input: p.input } : {}) });
      outcome = { ok: true, queries: r.queries, support: r.support };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (this.format === 'pretty' && outcome.ok && outcome.queries.length === 0) return this.out('undefined\n');
    const text = renderPartial(outcome, this.format);
    this.out(this.format === 'pretty' && outcome.ok ? boxRows(text) : text);
  }

  private async evaluate(p: ReturnType<ReplSession['prepare']>): Promise<void> {
    const opts = { data: p.data, ...(p.input !== undefined ? { input: p.input } : {}), strictBuiltinErrors: this.strictBuiltinErrors, print: (m: string) => this.out(m + '\n') };
    let trace = '';
    let rows;
    try {
      if (this.explain === 'off') rows = p.policy.prepare(p.query).eval(opts);
      else {
        const interp = await import('../compiler/interp/index.js');
        const traced = interp.prepareInterpreted(p.policy, p.query).evalWithTrace(opts);
        trace = interp.prettyTrace(interp.explain(traced.events, this.explain), { locations: true });
        if (traced.error !== undefined) throw traced.error;
        rows = traced.rows;
      }
    } catch (e) {
      const errs = toOutputErrors(e);
      this.out(trace + (this.format === 'json' ? errorsJSON(errs) : errorsText(errs)) + '\n');
      return;
    }
    rows = this.session.restore(rows, p.text);
    this.out(trace + (this.format === 'json' ? resultJSON(rows) + '\n' : prettyRows(rows, this.prettyLimit)));
  }

  private async command(op: string, args: string[]): Promise<void> {
    switch (op) {
      case 'exit':
        throw new Stop();
      case 'json':
      case 'pretty':
        this.format = op;
        return;
      case 'pretty-limit': {
        if (args.length !== 1) throw new Error('usage: pretty-limit <n>');
        if (!/^[+-]?\d+$/.test(args[0]!)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(args[0])}: invalid syntax`);
        this.prettyLimit = Number(args[0]);
        return;
      }
      case 'strict-builtin-errors':
        this.strictBuiltinErrors = !this.strictBuiltinErrors;
        return;
      case 'trace':
      case 'notes':
      case 'fails': {
        const mode = (op === 'trace' ? (args[0] ?? 'full') : op) as ExplainSetting;
        if (!['off', 'full', 'notes', 'fails', 'debug'].includes(mode)) throw new Error('invalid explain mode, expected one of: off, full, notes, fails, debug');
        this.explain = this.explain === mode ? 'off' : mode;
        return;
      }
      case 'show':
        return this.show(args);
      case 'unknown': {
        if (args.length === 0 && this.unknowns.length === 0) throw new Error(UNKNOWN_USAGE);
        if (!args.every((a) => /^(input|data)((\.[A-Za-z_][A-Za-z0-9_]*)|\[[^\]]+\])*$/.test(a))) throw new Error(UNKNOWN_USAGE);
        this.unknowns = args;
        return;
      }
      case 'unset':
        return this.unset(args);
      case 'unset-package': {
        if (args.length !== 1) throw new Error('unset-package <var>: expects exactly one argument');
        if (!this.session.unsetPackage(args[0]!)) this.out('warning: no matching package\n');
        return;
      }
      case 'dump': {
        const text = toJSON(this.session.data, '') + '\n';
        if (args[0] !== undefined) writeFileSync(args[0], text);
        else this.out(text);
        return;
      }
      case 'help': {
        if (args.length === 0) return this.out(helpText('> '));
        const t = topicText(args[0]!);
        if (t === undefined) throw new Error(`unknown topic '${args[0]}'`);
        return this.out(t);
      }
    }
    // metrics, instrument, profile, types, target
    if (op !== 'target') this.toggles[op] = !this.toggles[op];
    this.out(`warning: '${op}' is not supported by the Regent REPL\n`);
  }

  private show(args: string[]): void {
    if (args.length === 0) {
      const text = this.session.show();
      this.out(text ?? 'no rules defined\n');
      return;
    }
    if (args[0] !== 'debug') throw new Error(`unknown option '${args[0]}'`);
    const state = { explain: this.explain, metrics: !!this.toggles.metrics || !!this.toggles.instrument, instrument: !!this.toggles.instrument, profile: !!this.toggles.profile, 'strict-builtin-errors': this.strictBuiltinErrors };
    this.out(JSON.stringify(state, null, '\t') + '\n');
  }

  private unset(args: string[]): void {
    if (args.length !== 1) throw new Error('unset <var>: expects exactly one argument');
    const m = /^(?:[A-Za-z_][A-Za-z0-9_]*)/.exec(args[0]!);
    if (!m) throw new Error('argument must identify a rule');
    const rest = args[0]!.slice(m[0].length);
    if (rest !== '' && !['data', 'input'].includes(m[0])) throw new Error('arguments must identify a rule');
    if (!this.session.unset(m[0])) this.out('warning: no matching rules in current module\n');
  }
}

function message(e: unknown): string {
  if (e instanceof Error && !('code' in e) && !('errors' in e)) return e.message;
  return errorsText(toOutputErrors(e));
}

function isParseFailure(e: unknown): boolean {
  const errs = toOutputErrors(e);
  return errs.length > 0 && errs.every((x) => x.code === 'rego_parse_error');
}

/** Interactive sessions keep their history in ~/.regent_history (OPA: ~/.opa_history), newest first. */
const HISTORY = join(homedir(), '.regent_history');

function readHistory(): string[] {
  try {
    return readFileSync(HISTORY, 'utf8').split('\n').filter((l) => l !== '').reverse();
  } catch {
    return [];
  }
}

function saveHistory(lines: string[]): void {
  try {
    writeFileSync(HISTORY, [...lines].reverse().join('\n') + '\n');
  } catch {
    // history is best effort
  }
}

/** Run the REPL on stdin/stdout until `exit` or end of input. Returns the exit code. */
export async function runRepl(opts: ReplOptions, io: IO): Promise<number> {
  const repl = new Repl(opts, (t) => io.out(t));
  try {
    await repl.session.load();
  } catch (e) {
    io.err(`error: ${message(e)}\n`);
    return 1;
  }
  const tty = !!process.stdin.isTTY && !!process.stdout.isTTY;
  const history = tty ? readHistory() : [];
  const rl = createInterface({ input: process.stdin, ...(tty ? { output: process.stdout, history, historySize: 1000 } : {}), terminal: tty });
  // ctrl+c abandons the line being typed and prompts again (liner's SetCtrlCAborts).
  rl.on('SIGINT', () => {
    rl.write(null, { ctrl: true, name: 'u' });
    io.out('\n');
    rl.prompt();
  });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (prompt: string): Promise<string | undefined> => {
    if (tty) {
      rl.setPrompt(prompt);
      rl.prompt();
    } else io.out(prompt);
    const r = await lines.next();
    return r.done ? undefined : (r.value as string);
  };
  const watcher = opts.watch
    ? watchPaths(opts.paths.map((p) => splitPrefix(p).path), async () => {
        const t0 = performance.now();
        try {
          await repl.session.load();
          io.out(`\n# reloaded files (took ${goDuration(performance.now() - t0)})`);
        } catch (e) {
          io.out(`\n# reload error (took ${goDuration(performance.now() - t0)}): ${message(e)}`);
        }
      })
    : undefined;
  io.out(banner(opts.version));
  try {
    for (;;) {
      const line = await ask(repl.prompt());
      if (line !== undefined) {
        if (!(await repl.oneShot(line))) break;
        continue;
      }
      io.out('\n');
      let answer: string | undefined;
      do answer = (await ask(EXIT_PROMPT))?.toLowerCase();
      while (answer !== undefined && !['', 'y', 'yes', 'n', 'no'].includes(answer));
      if (answer !== 'n' && answer !== 'no') break;
    }
  } finally {
    watcher?.close();
    if (tty) saveHistory((rl as unknown as { history: string[] }).history);
    rl.close();
    process.stdin.pause();
  }
  return 0;
}
