// `regent fmt` (cli/fmt.ts over compiler/ast/fmt-module.ts): fmt(fmt(x)) === fmt(x)
// for every module of OPA's v1 conformance suite; OPA's layout rules (comments and
// blank lines kept, one-line `if` bodies, implied `= true` dropped, else, with,
// composites); the modes (v1, --v0-compatible keeps v0, --v0-v1 converts); and the
// -w/-l/-d/--fail/stdin behaviours of `opa fmt`.
import { describe, it, expect } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { fmtCommand, formatSource, lineDiff } from '../../../cli/fmt.js';
import type { Expr, Module, Term } from '../../../compiler/ast/nodes.js';
import { parseModule } from '../../../compiler/index.js';
import { sharedDir } from '../../shared-dir.js';

const ROOT = join(sharedDir(), 'opa-conformance', 'v1');

function conformanceModules(): [string, string][] {
  if (!existsSync(ROOT)) return [];
  const out: [string, string][] = [];
  for (const dir of readdirSync(ROOT).sort()) {
    for (const f of readdirSync(join(ROOT, dir)).sort()) {
      if (!f.endsWith('.yaml')) continue;
      const doc = load(readFileSync(join(ROOT, dir, f), 'utf8')) as { cases?: { note: string; modules?: string[] }[] };
      for (const c of doc.cases ?? []) (c.modules ?? []).forEach((m, i) => out.push([`${c.note}#${i}`, m]));
    }
  }
  return out;
}

function run(argv: string[], stdin = '') {
  let out = '';
  let err = '';
  const code = fmtCommand(argv, { out: (s) => void (out += s), err: (s) => void (err += s), stdin: () => stdin });
  return { code, out, err };
}

const modules = conformanceModules();

describe.skipIf(modules.length === 0)('fmt is idempotent over the conformance suite', () => {
  it('fmt(fmt(x)) === fmt(x) for every module', () => {
    const failures: string[] = [];
    for (const [name, src] of modules) {
      try {
        const once = formatSource(src, name);
        const twice = formatSource(once, name);
        if (once !== twice) failures.push(`${name}: not idempotent`);
      } catch (e) {
        failures.push(`${name}: ${(e as Error).message}`);
      }
    }
    expect(modules.length).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  });

  it('the formatted module parses to the same rules and imports', () => {
    const failures: string[] = [];
    for (const [name, src] of modules) {
      let before: Module;
      try {
        before = parseModule(src, name);
      } catch {
        continue;
      }
      const after = parseModule(formatSource(src, name), name);
      if (astKey(before) !== astKey(after)) failures.push(name);
    }
    expect(failures).toEqual([]);
  });
});

/**
 * The rules and imports of a module without locations, comments, wildcard numbers
 * and what formatting may legitimately change: import order, `=` vs `:=`, an
 * implied `= true` value and an implied `{ true }` body.
 */
function astKey(m: Module): string {
  const norm = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map((y) => norm(y));
    if (!x || typeof x !== 'object') return x;
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      if (k === 'loc' || k === 'raw' || k === 'assign') continue;
      if (k === 'value' && 'ref' in x && !('key' in x) && (v as Term | undefined)?.kind === 'boolean' && (v as { value: boolean }).value) continue;
      if (k === 'body' && Array.isArray(v) && v.length === 1 && isTrueExpr(v[0] as Expr)) {
        o[k] = [];
        continue;
      }
      o[k] = norm(v);
    }
    return o;
  };
  const imports = m.imports.map((i) => JSON.stringify(norm(i))).sort();
  return JSON.stringify({ imports, rules: norm(m.rules) }).replace(/\$_\d+/g, '$_');
}

function isTrueExpr(e: Expr): boolean {
  return !e.negated && e.with.length === 0 && e.body.type === 'term' && e.body.term.kind === 'boolean' && e.body.term.value;
}

describe('formatSource', () => {
  it('parenthesises `k, v in xs` in value positions', () => {
    const out = formatSource('package p\n\np := x if {\n\tx := (1, "foo" in 1)\n}\n', 'a.rego');
    expect(out).toContain('x := (1, "foo" in 1)');
  });

  it('keeps back-quoted template strings', () => {
    const src = 'package p\n\nx := $`a {input.x}\n\\{b}` if true\n';
    const out = formatSource(src, 'a.rego');
    expect(out).toContain('$`a {input.x}\n\\{b\\}`');
    expect(formatSource(out, 'a.rego')).toBe(out);
  });

  it('keeps composites written over several lines multi-line, one source row per line', () => {
    const src = 'package p\n\nx := [1, 2,\n3]\n\ny := {"a": 1, "b": {\n"c": [1,\n2]}}\n\nz := [1, 2]\n';
    const out = formatSource(src, 'a.rego');
    expect(out).toBe('package p\n\nx := [\n\t1, 2,\n\t3,\n]\n\ny := {"a": 1, "b": {\n\t"c": [\n\t\t1,\n\t\t2,\n\t],\n}}\n\nz := [1, 2]\n');
    expect(formatSource(out, 'a.rego')).toBe(out);
    // a comment on the opening row moves to the end of the first line of elements (as OPA)
    const body = formatSource('package p\n\nq if {\n\tx := [1, # c\n\t2]\n\tx[0] == 1\n}\n', 'a.rego');
    expect(body).toBe('package p\n\nq if {\n\tx := [\n\t\t1, # c\n\t\t2,\n\t]\n\tx[0] == 1\n}\n');
    expect(formatSource(body, 'a.rego')).toBe(body);
  });

  it('keeps a blank line after a comment block not directly above the next statement', () => {
    const src = '# Licence\n# text\n\npackage p\n\n# doc\nallow := true\n';
    expect(formatSource(src, 'a.rego')).toBe(src);
    expect(formatSource('# Licence\n\n\n\npackage p\n# doc\n\n\nallow := true', 'a.rego')).toBe(
      '# Licence\n\npackage p\n\n# doc\n\nallow := true\n');
  });

  it('keeps one-line if bodies, bodiless values and blank lines between expressions', () => {
    const src = 'package p\n\nallow := true\n\nok if input.x == 1\n\nq if {\n\tinput.a\n\n\tinput.b\n}\n';
    expect(formatSource(src, 'a.rego')).toBe(src);
    expect(formatSource('package p\nok if { input.x == 1 }\n\nr if {\n input.x\n}', 'a.rego')).toBe(
      'package p\n\nok if input.x == 1\n\nr if {\n\tinput.x\n}\n');
  });

  it('groups adjacent one-line rules and drops an implied := true', () => {
    const out = formatSource('package p\na := 1\nb := 2\n\nc := 3\np := true if input.x\n', 'a.rego');
    expect(out).toBe('package p\n\na := 1\nb := 2\n\nc := 3\np if input.x\n');
  });

  it('parenthesises nested infix calls as OPA does, and only where needed at the top', () => {
    const out = formatSource('package p\n\nq if {\n\ty := x + 1 + 2\n\tx + 1 > 2\n\tplus(1, 2, z)\n\tf((a + b) / 2)\n}\n', 'a.rego');
    expect(out).toBe('package p\n\nq if {\n\ty := (x + 1) + 2\n\tx + 1 > 2\n\tz = 1 + 2\n\tf((a + b) / 2)\n}\n');
  });

  it('parenthesises a union leading a braced rule body, which would read back as a comprehension', () => {
    const out = formatSource('package p\n\nq if {\n\t(input.a | input.b) == {1}\n\tinput.x\n}\n', 'a.rego');
    expect(out).toBe('package p\n\nq if {\n\t(input.a | input.b) == {1}\n\tinput.x\n}\n');
  });

  it('keeps strings as written and moves with modifiers only to indented lines', () => {
    const src = 'package p\n\ns := ["\\u00e9", `a\\b`]\n\nt if {\n\tinput.x with input as 1\n\t\twith data.y as 2\n}\n';
    expect(formatSource(src, 'a.rego')).toBe(src);
  });

  it('keeps v0 syntax with --v0-compatible', () => {
    const src = 'package p\n\np[x] { x = 1 }\nallow = true { input.x }\naccept("RunAsAny", _)\nf(x) = y { y := x }\n';
    expect(formatSource(src, 'a.rego', { v0Compatible: true })).toBe(
      'package p\n\np[x] {\n\tx = 1\n}\n\nallow {\n\tinput.x\n}\n\naccept("RunAsAny", _)\n\nf(x) = y {\n\ty := x\n}\n');
    expect(() => formatSource('package p\n\np contains 1 if true\n', 'a.rego', { v0Compatible: true })).toThrow();
  });

  it('converts v0 to v1 with import rego.v1 with --v0-v1', () => {
    const out = formatSource('package p\n\nimport future.keywords.in\n\np[x] { x = 1 }\n\naccept("RunAsAny", _)\n', 'a.rego', { v0v1: true });
    expect(out).toBe('package p\n\nimport rego.v1\n\np contains x if x = 1\n\naccept("RunAsAny", _) := true\n');
    expect(formatSource(out, 'a.rego')).toBe(out);
  });

  it('throws on parse errors', () => {
    expect(() => formatSource('package p\n\np[x] { x = 1 }\n', 'a.rego')).toThrow();
  });
});

describe('regent fmt', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-fmt-'));
  const ugly = 'package p\np if { x := 1; x == 1 }\n';
  const pretty = 'package p\n\np if {\n\tx := 1\n\tx == 1\n}\n';

  it('formats stdin to stdout', () => {
    expect(run([], ugly)).toEqual({ code: 0, out: pretty, err: '' });
    expect(run([], 'package').code).toBe(1);
  });

  it('prints formatted files, lists (-l) and diffs (-d) changed ones', () => {
    const f = join(dir, 'a.rego');
    writeFileSync(f, ugly);
    writeFileSync(join(dir, 'b.rego'), pretty);
    writeFileSync(join(dir, 'c.txt'), 'not rego');
    expect(run([f]).out).toBe(pretty);
    expect(run(['-l', dir]).out).toBe(f + '\n');
    const d = run(['-d', f]);
    expect(d.out).toContain(`--- ${f}`);
    expect(d.out).toContain('+\tx := 1');
    expect(run(['--fail', '-l', dir]).code).toBe(2);
    expect(run(['--fail', join(dir, 'b.rego')]).code).toBe(0);
    expect(run(['--fail', f]).code).toBe(2);
  });

  it('overwrites with -w', () => {
    const f = join(dir, 'w.rego');
    writeFileSync(f, ugly);
    expect(run(['-w', f])).toEqual({ code: 0, out: '', err: '' });
    expect(readFileSync(f, 'utf8')).toBe(pretty);
    expect(run(['-l', f]).out).toBe('');
  });

  it('reports parse errors with exit code 2', () => {
    const f = join(dir, 'bad.rego');
    writeFileSync(f, 'package p\np[x] { x = 1 }\n');
    const r = run([f]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^failed to format Rego source file: /);
    expect(run(['--v0-compatible', f]).code).toBe(0);
    expect(run(['--v0-v1', f]).out).toBe('package p\n\nimport rego.v1\n\np contains x if x = 1\n');
    expect(run(['--rego-v1', f]).code).toBe(0);
  });
});

describe('lineDiff', () => {
  it('produces unified hunks', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nB\nc\n', 'f')).toBe('--- f\n+++ f (formatted)\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c');
    expect(lineDiff('x\n', 'x\n', 'f')).toBe('');
  });
});
