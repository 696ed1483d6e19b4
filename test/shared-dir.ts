// Where the workspace's shared folder (OPA's compliance suite, the spec, the
// notes) is: $REGENT_SHARED_DIR when set (.ci/run sets it for clones made
// outside the workspace), otherwise ../shared beside the repository. Used by the
// conformance runner and the README checks, so both look in the same place.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (one level above this file). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function sharedDir(): string {
  const env = process.env.REGENT_SHARED_DIR;
  return env ? resolve(env) : resolve(repoRoot, '..', 'shared');
}
