// The layering rules of the guide, checked on every source file's imports:
// runtime/ never imports compiler/, server/ or cli/; server/ reaches compiler/ and
// runtime/ only through their public index.ts; compiler/ never imports server/ or cli/.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Every relative module a file imports (static, dynamic, side-effect and re-exports), as repository paths. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)) {
    out.push(relative(root, resolve(dirname(file), m[1]!)).split('\\').join('/'));
  }
  return out;
}

/** Imports of files under `folder` that break `allowed`. */
function violations(folder: string, allowed: (target: string) => boolean): string[] {
  const bad: string[] = [];
  for (const file of sources(join(root, folder))) {
    for (const target of imports(file)) if (!allowed(target)) bad.push(`${relative(root, file)} → ${target}`);
  }
  return bad;
}

const under = (target: string, folder: string): boolean => target === folder || target.startsWith(folder + '/');

describe('layering', () => {
  it('runtime/ never imports compiler/, server/ or cli/', () => {
    expect(violations('runtime', (t) => !['compiler', 'server', 'cli'].some((f) => under(t, f)))).toEqual([]);
  });

  it('server/ imports compiler/ and runtime/ only through their index.ts', () => {
    const publicOnly = (t: string): boolean => (!under(t, 'compiler') || t === 'compiler/index.js') && (!under(t, 'runtime') || t === 'runtime/index.js');
    expect(violations('server', (t) => publicOnly(t) && !under(t, 'cli'))).toEqual([]);
  });

  it('compiler/ never imports server/ or cli/', () => {
    expect(violations('compiler', (t) => !['server', 'cli'].some((f) => under(t, f)))).toEqual([]);
  });

  it('finds imports of every form', () => {
    // A guard on the scanner itself: this file's own relative imports would be found.
    expect(imports(join(root, 'compiler', 'policy.ts'))).toEqual(expect.arrayContaining(['runtime/scope.js', 'compiler/builtin-parser.js']));
  });
});
