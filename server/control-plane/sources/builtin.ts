// Builtin sources: Rego libraries shipped with Regent under builtin-lib/, named
// by their relative directory (e.g. `http-api-v1/library`). A builtin source is
// the files of that directory; an unknown name fails the sync with
// `source "x": directory does not exist`, as in the control plane.
import { stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceDef } from '../contract.js';
import { SyncError } from '../builder/errors.js';
import type { FileTree } from '../builder/files.js';
import { readTree, walkFiles } from './directory.js';

export const BUILTIN_ROOT = fileURLToPath(new URL('./builtin-lib/', import.meta.url));

function builtinDir(name: string): string | undefined {
  const clean = normalize(name).replace(/^\/+|\/+$/g, '');
  if (clean === '' || clean.startsWith('..') || clean.includes('/../')) return undefined;
  return join(BUILTIN_ROOT, clean);
}

export async function readBuiltinSource(def: SourceDef): Promise<FileTree> {
  if (!def.builtin) return new Map();
  const dir = builtinDir(def.builtin);
  const st = dir ? await stat(dir).catch(() => undefined) : undefined;
  if (!dir || !st?.isDirectory()) throw new SyncError(`source "${def.name}": directory does not exist`, true);
  return readTree(dir, (p) => !p.endsWith('.md'));
}

/** Names of the available builtin libraries (directories holding Rego files). */
export async function listBuiltins(): Promise<string[]> {
  const dirs = new Set<string>();
  for (const p of await walkFiles(BUILTIN_ROOT)) {
    if (p.endsWith('.rego')) dirs.add(p.slice(0, p.lastIndexOf('/')));
  }
  return [...dirs].sort();
}
