// Whether dist/ (what `regent` and `regent run --server` run when it is current,
// see bin/regent.js) is at least as new as the TypeScript sources it is built
// from. The CLI-start and server benchmarks time dist/, and rebuild it when stale.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = join(fileURLToPath(import.meta.url), '..', '..');

/** The newest modification time of any `.ts` file below `dir`. */
function newestSource(dir: string, newest = 0): number {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = newestSource(p, newest);
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Whether `dist/<entry>` exists and is newer than every source in `folders`
 * (e.g. `distIsCurrent('server/index.js', ['compiler', 'runtime', 'server'])`).
 */
export function distIsCurrent(entry: string, folders: string[]): boolean {
  const built = join(repoRoot, 'dist', entry);
  if (!existsSync(built)) return false;
  const at = statSync(built).mtimeMs;
  return folders.every((d) => newestSource(join(repoRoot, d)) <= at);
}
