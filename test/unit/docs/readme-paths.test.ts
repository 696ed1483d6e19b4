// Every file a folder README names in backquotes must exist (relative to that
// README's folder, or to the repository root), so the READMEs stay true to the code.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDir } from '../../shared-dir.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function readmes(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) readmes(p, out);
    else if (name === 'README.md') out.push(p);
  }
  return out;
}

/** Backquoted tokens that look like repository files: a known extension, no spaces or placeholders. */
function namedFiles(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]+)`/g)) {
    const t = m[1]!.replace(/[),.:;]+$/, '');
    // `/x.json` names a file inside a bundle, not in the repository.
    if (/[<>*{}$]|^https?:|^-|^\.|^\/|NNN/.test(t)) continue;
    if (/\.(ts|mts|mjs|js|md|json|rego|sql|yaml)$/.test(t)) out.add(t);
  }
  return [...out];
}

/** Every file path under a folder, relative to it (for bare names in section tables). */
function filesUnder(dir: string, base = dir, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) filesUnder(p, base, out);
    else out.push(relative(base, p));
  }
  return out;
}

describe('README files name files that exist', () => {
  for (const file of readmes(root)) {
    const rel = relative(root, file);
    const dir = dirname(file);
    it(rel, () => {
      // A README may name files of its folder, of the folder above (a sub-part
      // describing its siblings), of the repository, or of the shared notes.
      const parent = dirname(dir);
      const local = filesUnder(parent === root ? dir : parent);
      const shared = ['notes', 'spec'].map((d) => join(sharedDir(), d));
      const exists = (t: string): boolean =>
        existsSync(join(dir, t)) ||
        existsSync(join(parent, t)) ||
        existsSync(join(root, t)) ||
        shared.some((d) => existsSync(join(d, t))) ||
        local.some((f) => f === t || f.endsWith('/' + t));
      const missing = namedFiles(readFileSync(file, 'utf8')).filter((t) => !t.startsWith('../') && !exists(t));
      expect(missing).toEqual([]);
    });
  }
});
