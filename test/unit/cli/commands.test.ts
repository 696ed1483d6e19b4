// Tests of command dispatch (main), `regent check`, `regent parse`, and one real
// process spawn of bin/regent.js to prove the entry point works end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { COMMANDS, main } from '../../../cli/main.js';
import { checkCommand } from '../../../cli/check.js';
import { astToJSON, astToTree, parseCommand } from '../../../cli/parse.js';
import { parseNumber } from '../../../runtime/value/index.js';
import { capture, tempTree } from './helpers.js';

const repo = resolve(import.meta.dirname, '..', '..', '..');
let dir: string;
let cleanup: () => void;

beforeAll(() => {
  ({ dir, cleanup } = tempTree({
    'ok/a.rego': 'package a\n\np := 1\n',
    'ok/sub/b.rego': 'package b\n\nq := data.a.p + 1\n',
    'bad/x.rego': 'package x\n\np := \n',
    'bad/y.rego': 'package y\n\nq if {\n',
    'unsafe/u.rego': 'package u\n\np if { x > 1 }\n',
  }));
});
afterAll(() => cleanup());

describe('main dispatch', () => {
  it('has the commands and reserved slots', () => {
    for (const name of ['eval', 'parse', 'check', 'run', 'build', 'test', 'fmt', 'bench', 'capabilities', 'control-plane'])
      expect(COMMANDS[name], name).toBeDefined();
  });

  // As opa (cobra): no command prints the help (exit 0); an unknown one is an error, exit 1.
  it('prints usage for no command and exits 1 for an unknown command', async () => {
    const none = capture();
    expect(await main([], none.io)).toBe(0);
    expect(none.out).toContain('Usage:');
    const unknown = capture();
    expect(await main(['frobnicate'], unknown.io)).toBe(1);
    expect(unknown.err).toBe('Error: unknown command "frobnicate" for "regent"\nRun \'regent --help\' for usage.\n');
    const proto = capture();
    expect(await main(['toString'], proto.io)).toBe(1);
  });

  it('answers --help, help <cmd> and version', async () => {
    const h = capture();
    expect(await main(['--help'], h.io)).toBe(0);
    expect(h.out).toContain('Commands:');
    const he = capture();
    expect(await main(['help', 'eval'], he.io)).toBe(0);
    expect(he.out).toContain('Usage: regent eval');
    const v = capture();
    expect(await main(['version'], v.io)).toBe(0);
    expect(v.out).toMatch(/^Version: \d+\.\d+\.\d+/);
  });

  it('runs as a process through bin/regent.js', () => {
    const p = spawnSync(process.execPath, [join(repo, 'bin', 'regent.js'), 'eval', '-d', join(dir, 'missing'), 'data'], { encoding: 'utf8' });
    expect(p.status).toBe(2); // opa eval: errors exit 2
    expect(JSON.parse(p.stdout).errors[0].message).toContain('no such file or directory');
    const u = spawnSync(process.execPath, [join(repo, 'bin', 'regent.js'), 'nope'], { encoding: 'utf8' });
    expect(u.status).toBe(1);
  });
});

describe('parse output helpers', () => {
  const big = '123456789012345678901234567890';
  const node = { kind: 'number', value: parseNumber(big), text: big, loc: { file: 'f', row: 2, col: 3, offset: 9 } };

  it('astToJSON writes BigNums exactly and leaves out locations by default', () => {
    const json = astToJSON({ kind: 'array', items: [node] });
    expect(json).not.toContain('loc');
    expect(JSON.parse(json).items[0].text).toBe(big);
    expect(json).toContain(`"value": ${big},`);
    expect(JSON.parse(astToJSON(node, { locations: true })).loc).toEqual({ file: 'f', row: 2, col: 3, offset: 9 });
  });

  it('astToTree prints one line per node with scalar fields', () => {
    expect(astToTree({ kind: 'array', items: [node], loc: { row: 1, col: 1 } })).toBe(
      `array @1:1\n  items: [1]\n    number value=${big} text="${big}" @2:3\n`,
    );
  });
});

// The following need a working parser/compiler.
describe('check', () => {
  it('exits 0 silently for valid files', () => {
    const c = capture();
    expect(checkCommand([join(dir, 'ok')], c.io)).toBe(0);
    expect(c.out + c.err).toBe('');
  });

  it('reports every parse error of every file', () => {
    const c = capture();
    expect(checkCommand([join(dir, 'bad')], c.io)).toBe(1);
    // Each error is followed by its source line and caret (tab-indented, as opa check).
    const lines = c.err.trim().split('\n').filter((l) => !l.startsWith('\t'));
    expect(lines[0]).toBe('2 errors occurred:');
    expect(lines[1]).toMatch(new RegExp(`^${join(dir, 'bad', 'x.rego')}:\\d+: rego_parse_error: `));
    expect(lines[2]).toMatch(new RegExp(`^${join(dir, 'bad', 'y.rego')}:\\d+: rego_parse_error: `));
  });

  it('reports compile errors, as JSON with --format json', () => {
    const c = capture();
    expect(checkCommand(['--format', 'json', join(dir, 'unsafe')], c.io)).toBe(1);
    const errs = JSON.parse(c.err).errors;
    expect(errs[0]).toMatchObject({ code: 'rego_unsafe_var_error', location: { file: join(dir, 'unsafe', 'u.rego'), row: 3 } });
  });
});

describe('parse', () => {
  it('prints the module AST as JSON', () => {
    const c = capture();
    expect(parseCommand(['--format', 'json', join(dir, 'ok', 'a.rego')], c.io)).toBe(0);
    const ast = JSON.parse(c.out);
    expect(ast.package.path[0]).toEqual({ type: 'var', value: 'data' });
    expect(ast.rules).toHaveLength(1);
    expect(ast.rules[0].head.value).toEqual({ type: 'number', value: 1 });
  });

  it('prints parse errors with exit code 1', () => {
    const c = capture();
    expect(parseCommand(['--format', 'json', join(dir, 'bad', 'x.rego')], c.io)).toBe(1);
    expect(JSON.parse(c.out).errors[0].code).toBe('rego_parse_error');
    expect(parseCommand([], capture().io)).toBe(1); // usage errors: exit 1, as cobra's
    expect(parseCommand(['--json-include', 'bogus', join(dir, 'ok', 'a.rego')], capture().io)).toBe(1);
  });
});
