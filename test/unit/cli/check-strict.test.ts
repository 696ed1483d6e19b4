// `regent check --strict` / `-S`: OPA's strict-mode errors through the command
// (pretty and JSON output, exit codes, --max-errors), and the real-world corpus:
// gatekeeper-library passes `opa check --strict src` upstream, so it must be clean.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCommand } from '../../../cli/check.js';
import { sharedDir } from '../../shared-dir.js';
import { capture, tempTree } from './helpers.js';

const { dir, cleanup } = tempTree({
  'clean/p.rego': 'package p\nimport data.lib.allowed\nallow if {\n\tsome x in input.xs\n\tx in allowed\n}\n',
  'clean/lib.rego': 'package lib\nallowed := {1, 2}\n',
  'imports/p.rego': 'package p\nimport data.foo\nimport input.user as u\np := 1\n',
  'locals/p.rego': 'package p\nf(x, y) := x\np if {\n\tz := 1\n}\n',
  'v0/p.rego': 'package p\nq { any([true]) }\nr { input := 1 }\n',
  'many/p.rego': 'package p\n' + Array.from({ length: 12 }, (_, i) => `import data.m${i}\n`).join('') + 'p := 1\n',
});
afterAll(cleanup);

describe('check --strict', () => {
  it('is clean for a policy that uses everything it declares', () => {
    const c = capture();
    expect(checkCommand(['--strict', join(dir, 'clean')], c.io)).toBe(0);
    expect(c.err).toBe('');
  });

  it('reports unused imports (pretty), and nothing without --strict', () => {
    const c = capture();
    expect(checkCommand(['--strict', join(dir, 'imports')], c.io)).toBe(1);
    const f = join(dir, 'imports', 'p.rego');
    expect(c.err).toBe(`2 errors occurred:\n${f}:2: rego_compile_error: import data.foo unused\n${f}:3: rego_compile_error: import input.user as u unused\n`);
    expect(checkCommand([join(dir, 'imports')], capture().io)).toBe(0);
  });

  it('-S reports unused locals and arguments as JSON', () => {
    const c = capture();
    expect(checkCommand(['-S', '--format', 'json', join(dir, 'locals')], c.io)).toBe(1);
    const errs = JSON.parse(c.err).errors;
    expect(errs).toMatchObject([
      { code: 'rego_compile_error', message: 'unused argument y. (hint: use _ (wildcard variable) instead)', location: { row: 2 } },
      { code: 'rego_compile_error', message: 'assigned var z unused', location: { row: 4 } },
    ]);
  });

  it('reports shadowing of input before deprecated builtins (v0)', () => {
    const c = capture();
    expect(checkCommand(['--strict', '--v0-compatible', join(dir, 'v0')], c.io)).toBe(1);
    expect(c.err).toContain('p.rego:3: rego_compile_error: variables must not shadow input (use a different variable name)');
    expect(c.err).not.toContain('deprecated');
  });

  it('honours --max-errors', () => {
    const c = capture();
    expect(checkCommand(['--strict', '-m', '3', join(dir, 'many')], c.io)).toBe(1);
    const lines = c.err.trim().split('\n');
    expect(lines[0]).toBe('4 errors occurred:');
    expect(lines[4]).toBe('rego_compile_error: error limit reached');
  });
});

const gatekeeper = join(sharedDir(), 'rego-corpus', 'gatekeeper-library', 'src');

describe.skipIf(!existsSync(gatekeeper))('check --strict on gatekeeper-library', () => {
  it('is clean, as `opa check --strict src` upstream', () => {
    const c = capture();
    expect(checkCommand(['--strict', '--v0-compatible', gatekeeper], c.io)).toBe(0);
    expect(c.err).toBe('');
  });
});
