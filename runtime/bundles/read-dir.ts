// Reading a bundle from a directory (`opa run -b dir`, `opa build -b dir`): every
// regular file under the root, dot-files included (`.manifest`,
// `.signatures.json`), with its path relative to the root as the bundle path.
// Symbolic links are skipped unless followSymlinks is set. Files over the size
// limit are refused before they are read. The bundle rules are loadBundleFiles'.
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Bundle } from './types.js';
import { BundleError } from './errors.js';
import { DEFAULT_MAX_FILES, DEFAULT_SIZE_LIMIT_BYTES, loadBundleFiles, type BundleFile, type ReadOptions } from './load.js';

export interface DirectoryOptions extends ReadOptions {
  followSymlinks?: boolean;
  /** Skip files for which this returns true (path relative to the root, `/`-separated). */
  filter?: (relPath: string, isDir: boolean) => boolean;
}

/** The files of a directory as bundle files (sorted, so reads are deterministic). */
export function directoryFiles(root: string, opts: DirectoryOptions = {}): BundleFile[] {
  const limit = opts.sizeLimitBytes ?? DEFAULT_SIZE_LIMIT_BYTES;
  const maxFiles = opts.maxFiles ?? DEFAULT_MAX_FILES;
  let st;
  try {
    st = statSync(root);
  } catch {
    throw new BundleError('path', `stat ${root}: no such file or directory`);
  }
  if (!st.isDirectory()) throw new BundleError('path', `${root}: not a directory`);
  const out: BundleFile[] = [];
  const pending: string[] = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const name of readdirSync(dir).sort().reverse()) {
      const full = join(dir, name);
      const rel = relative(root, full).split(sep).join('/');
      let info = lstatSync(full);
      if (info.isSymbolicLink()) {
        if (!opts.followSymlinks) continue;
        info = statSync(full);
      }
      if (info.isDirectory()) {
        if (opts.filter?.(rel, true)) continue;
        pending.push(full);
      } else if (info.isFile()) {
        if (opts.filter?.(rel, false)) continue;
        if (info.size > limit) throw new BundleError('size', `bundle file ${rel} size (${info.size} bytes) exceeds configured size_limit_bytes (${limit} bytes)`);
        out.push({ path: '/' + rel, bytes: readFileSync(full) });
        if (out.length > maxFiles) throw new BundleError('size', `bundle contains too many files (limit ${maxFiles})`);
      }
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Read a bundle directory into a Bundle. */
export async function readBundleDir(root: string, opts: DirectoryOptions = {}): Promise<Bundle> {
  return loadBundleFiles(directoryFiles(root, opts), opts);
}
