// Directory sources: `directory` + `paths` (globs, see builder/glob.ts) read from
// the local filesystem relative to `directory`, or to the process working
// directory when `directory` is empty. A `directory` without `paths` contributes
// nothing; `paths` that match nothing are a user error. A `.manifest` at the top
// of the directory is carried along (it may set rego_version, roots, revision).
// Unlike OCP, which snapshots the files when the source is stored, the files are
// read on every build, so edits on disk show up at the next rebuild.
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SourceDef } from '../contract.js';
import { SyncError } from '../builder/errors.js';
import type { FileTree } from '../builder/files.js';
import { matchesAny } from '../builder/glob.js';

export const MAX_DIRECTORY_FILES = 20_000;

/** Every regular file under `root` (relative, slash-separated), skipping `.git`. */
export async function walkFiles(root: string, limit = MAX_DIRECTORY_FILES): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name !== '.git') await visit(p);
      } else if (e.isFile()) {
        out.push(p);
        if (out.length > limit) throw new SyncError(`directory ${root}: more than ${limit} files`, true);
      }
    }
  };
  await visit('');
  return out;
}

/** Read every file of `root` into a tree (used for builtin libraries and tests). */
export async function readTree(root: string, keep: (path: string) => boolean = () => true): Promise<FileTree> {
  const tree: FileTree = new Map();
  for (const p of await walkFiles(root)) if (keep(p)) tree.set(p, await readFile(join(root, p)));
  return tree;
}

export async function readDirectorySource(def: SourceDef, cwd = process.cwd()): Promise<FileTree> {
  const patterns = def.paths ?? [];
  if (patterns.length === 0) return new Map();
  const base = resolve(cwd, def.directory ?? '');
  let tree: FileTree;
  try {
    tree = await readTree(base, (p) => p === '.manifest' || matchesAny(patterns, p));
  } catch (e) {
    if (e instanceof SyncError) throw e;
    throw new SyncError(`source "${def.name}": directory ${base}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, true);
  }
  if ([...tree.keys()].every((p) => p === '.manifest')) {
    throw new SyncError(`no files matched patterns for source "${def.name}"`, true);
  }
  return tree;
}
