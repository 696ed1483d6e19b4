// `regent run` without --server (the REPL, cli/repl.ts) and `regent run -w` (cli/run-watch.ts),
// driven as a user drives them: the CLI is spawned, lines are written to its stdin and
// the transcript on stdout is compared with what OPA's REPL prints (v1/repl/repl_test.go):
// `> ` prompts, `Rule 'x' defined in package repl. …`, pretty JSON values, box tables
// for bindings, `undefined`, `| ` continuation lines, errors, `show`, `unset`, the json
// format, and the exit question at end of input. The watch tests change files under a
// running REPL and a running server and see the new policy take effect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { boxTable, goDuration } from '../../../cli/repl-output.js';
import { join, resolve } from 'node:path';
import { tempTree } from './helpers.js';

const bin = join(resolve(import.meta.dirname, '..', '..', '..'), 'bin', 'regent.js');

const POLICY = `package example

allow if input.user == "alice"

users contains name if some name in data.users
`;

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempTree({ 'policy.rego': POLICY, 'data.json': '{"users": ["alice", "bob"]}' })));
afterAll(() => cleanup());

interface Proc {
  p: ChildProcessWithoutNullStreams;
  readonly out: string;
  readonly err: string;
  send(line: string): void;
  waitFor(re: RegExp, ms?: number): Promise<string>;
  done: Promise<number | null>;
}

function start(args: string[]): Proc {
  const p = spawn(process.execPath, [bin, 'run', ...args], { cwd: dir });
  let out = '';
  let err = '';
  p.stdout.setEncoding('utf8').on('data', (s: string) => void (out += s));
  p.stderr.setEncoding('utf8').on('data', (s: string) => void (err += s));
  const done = new Promise<number | null>((res) => p.on('close', res));
  return {
    p,
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    send: (line) => void p.stdin.write(line + '\n'),
    async waitFor(re, ms = 15_000) {
      const t = Date.now();
      while (!re.test(out + err)) {
        if (Date.now() - t > ms) throw new Error(`timed out waiting for ${re}; stdout:\n${out}\nstderr:\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return out;
    },
    done,
  };
}

/** Run the REPL on `lines` (stdin then closed); the whole stdout. */
async function transcript(args: string[], lines: string[]): Promise<{ out: string; code: number | null }> {
  const r = start(args);
  r.p.stdin.end(lines.map((l) => l + '\n').join(''));
  const code = await r.done;
  return { out: r.out, code };
}

const BANNER = /^Regent .*\n\nRun 'help' to see a list of commands\.\n\n/;

describe('regent run (REPL)', () => {
  it('evaluates queries against the loaded files, defines rules, and asks before exiting at end of input', async () => {
    const { out, code } = await transcript(['policy.rego', 'data.json'], [
      'data.example.users',
      'data.users[i]',
      'x := 1',
      'x',
      'x = 1',
      'x := 2',
      'show',
      'p if {',
      '  x == 2',
      '}',
      '',
      'p',
      'data.example.allow',
    ]);
    expect(code).toBe(0);
    expect(out).toMatch(BANNER);
    expect(out.replace(BANNER, '')).toBe(
      [
        '> [\n  "alice",\n  "bob"\n]\n',
        '> ┌───┬───────────────┐\n│ i │ data.users[i] │\n├───┼───────────────┤\n│ 0 │ "alice"       │\n│ 1 │ "bob"         │\n└───┴───────────────┘\n',
        "> Rule 'x' defined in package repl. Type 'show' to see rules.\n",
        '> 1\n',
        '> true\n',
        "> Rule 'x' re-defined in package repl. Type 'show' to see rules.\n",
        '> package repl\n\nx := 2\n',
        "> | | | Rule 'p' defined in package repl. Type 'show' to see rules.\n",
        '> true\n',
        '> undefined\n',
        '> \nDo you want to exit ([y]/n)? ',
      ].join(''),
    );
  });

  it('takes input from package repl.input, and handles package, import, unset, json, errors and exit', async () => {
    const { out, code } = await transcript(['policy.rego', 'data.json'], [
      'package repl.input',
      'user := "alice"',
      'package foo',
      'import data.example.users as u',
      'data.example.allow',
      'u',
      'f(a) := a * 2',
      'f(3)',
      'unset f',
      'f(3)',
      'unset nothing',
      'show',
      '1 +',
      '',
      'json',
      '1 + 1',
      'pretty',
      'exit',
      'data',
    ]);
    expect(code).toBe(0);
    const body = out.replace(BANNER, '');
    expect(body).toBe(
      [
        "> > Rule 'user' defined in package repl.input. Type 'show' to see rules.\n",
        '> > > true\n',
        '> [\n  "alice",\n  "bob"\n]\n',
        "> Rule 'f' defined in package foo. Type 'show' to see rules.\n",
        '> 6\n',
        '> > 1 error occurred: 1:1: rego_type_error: undefined function f\n',
        '> warning: no matching rules in current module\n',
        '> package foo\n\nimport data.example.users as u\n',
        '> | 1 error occurred: 2:1: rego_parse_error: unexpected eof token\n\t1 +\n\t  ^\n',
        '> > ' + JSON.stringify({ result: [{ expressions: [{ value: 2, text: '1 + 1', location: { row: 1, col: 1 } }] }] }, null, 2) + '\n',
        '> > ',
      ].join(''),
    );
  });

  it('prints help, show debug, no rules defined, and evaluation errors', async () => {
    const { out } = await transcript([], ['help', 'show', 'show debug', 'strict-builtin-errors', 'to_number("x")', 'print("hi")', 'help nope', 'y := z', 'exit']);
    // A rule's compile error points into the line that defined it, as OPA's; an unsafe
    // head variable is reported at the rule (checkSafetyRuleHeads).
    expect(out).toContain('> 1 error occurred: 1:1: rego_unsafe_var_error: var z is unsafe\n');
    expect(out).toContain('\nExamples\n========\n\n> data                 # show all documents\n');
    expect(out).toContain('                       <stmt> : evaluate the statement\n');
    expect(out).toContain('> no rules defined\n');
    expect(out).toContain('{\n\t"explain": "off",\n\t"metrics": false,\n\t"instrument": false,\n\t"profile": false,\n\t"strict-builtin-errors": false\n}\n');
    expect(out).toContain('> > 1 error occurred: 1:1: eval_builtin_error: to_number: strconv.ParseFloat: parsing "x": invalid syntax\n');
    expect(out).toContain('> hi\ntrue\n');
    expect(out).toContain("> unknown topic 'nope'\n");
  });

  it('partially evaluates with unknown, printing residual queries as OPA does', async () => {
    const { out } = await transcript([], ['xs := [1,2,3]', 'unknown input', 'data.repl.xs[i] = x; input.x = x', '1 == 2', 'unknown x-1', 'unknown', '1 + 2', 'exit']);
    expect(out.replace(BANNER, '')).toBe(
      [
        "> Rule 'xs' defined in package repl. Type 'show' to see rules.\n",
        '> > ┌─────────┬─────────────┐\n│ Query 1 │ input.x = 1 │\n│         │ i = 0       │\n│         │ x = 1       │\n├─────────┼─────────────┤\n',
        '│ Query 2 │ input.x = 2 │\n│         │ i = 1       │\n│         │ x = 2       │\n├─────────┼─────────────┤\n',
        '│ Query 3 │ input.x = 3 │\n│         │ i = 2       │\n│         │ x = 3       │\n└─────────┴─────────────┘\n',
        '> undefined\n',
        "> usage: unknown <input/data reference> [<input/data reference> [...]] (hint: try 'input')\n",
        '> > 3\n> ',
      ].join(''),
    );
  });

  it('reloads the files under -w (policies, and input given as repl.input:FILE) and prints # reloaded files', async () => {
    const t = tempTree({ 'pol/p.rego': 'package w\n\nv := input.n + 1\n', 'in.json': '{"n": 1}' });
    const r = start(['-w', `repl.input:${join(t.dir, 'in.json')}`, join(t.dir, 'pol')]);
    try {
      await r.waitFor(/> $/);
      r.send('data.w.v');
      await r.waitFor(/> 2\n> $/);
      writeFileSync(join(t.dir, 'pol', 'p.rego'), 'package w\n\nv := input.n + 10\n');
      await r.waitFor(/# reloaded files \(took [0-9.]+(ns|µs|ms|s)\)$/);
      r.send('data.w.v');
      await r.waitFor(/# reloaded files \(took [^)]+\)11\n> $/);
      writeFileSync(join(t.dir, 'in.json'), '{"n": 5}');
      await r.waitFor(/11\n> \n# reloaded files \(took [^)]+\)$/);
      r.send('data.w.v');
      await r.waitFor(/\)15\n> $/);
      r.send('exit');
      expect(await r.done).toBe(0);
    } finally {
      r.p.kill();
      t.cleanup();
    }
  });
});

describe('regent run --server -w', () => {
  it('gives the engine the changed policy and data', async () => {
    const t = tempTree({ 'policy.rego': 'package example\n\nallow if input.user in data.admins\n', 'data.json': '{"admins": ["alice"]}' });
    const r = start(['--server', '-w', '--workers', '0', '--addr', '127.0.0.1:0', t.dir]);
    try {
      await r.waitFor(/listening on (http:\/\/\S+)/);
      const url = /listening on (http:\/\/\S+)/.exec(r.err)![1]!;
      const decide = async (user: string): Promise<unknown> => {
        const res = await fetch(`${url}/v1/data/example/allow`, { method: 'POST', body: JSON.stringify({ input: { user } }) });
        return ((await res.json()) as { result?: unknown }).result;
      };
      expect(await decide('bob')).toBeUndefined();
      expect(await decide('alice')).toBe(true);
      writeFileSync(join(t.dir, 'policy.rego'), 'package example\n\nallow if input.user == "bob"\n');
      await r.waitFor(/Processed file watch event/);
      expect(await decide('bob')).toBe(true);
      expect(await decide('alice')).toBeUndefined();
      writeFileSync(join(t.dir, 'policy.rego'), 'package example\n\nallow if input.user in data.admins\n');
      writeFileSync(join(t.dir, 'data.json'), '{"admins": ["carol"]}');
      const deadline = Date.now() + 15_000;
      while ((await decide('carol')) !== true && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
      expect(await decide('carol')).toBe(true);
      expect(await decide('alice')).toBeUndefined();
      // A file that does not parse leaves the engine as it was, and the log line says why.
      writeFileSync(join(t.dir, 'policy.rego'), 'package example\n\nallow if {\n');
      await r.waitFor(/"err":"[^"]*rego_parse_error/);
      expect(await decide('carol')).toBe(true);
      // A deleted file's module goes away.
      rmSync(join(t.dir, 'policy.rego'));
      const gone = Date.now() + 15_000;
      while ((await decide('carol')) !== undefined && Date.now() < gone) await new Promise((res) => setTimeout(res, 100));
      expect(await decide('carol')).toBeUndefined();
    } finally {
      r.p.kill('SIGTERM');
      await r.done;
      t.cleanup();
    }
  });
});

describe('REPL output helpers', () => {
  it('draws tables as tablewriter and durations as Go', () => {
    expect(boxTable(['x', 'long header'], [['"abc"', '1']])).toBe(
      '┌───────┬─────────────┐\n│   x   │ long header │\n├───────┼─────────────┤\n│ "abc" │ 1           │\n└───────┴─────────────┘\n',
    );
    expect([goDuration(0), goDuration(0.0005), goDuration(0.9229), goDuration(12.5), goDuration(1500)]).toEqual(['0s', '500ns', '922.9µs', '12.5ms', '1.5s']);
  });
});
