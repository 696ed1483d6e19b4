// Test helpers: temporary directories, reading a built bundle back with the
// runtime's bundle reader, and running the worker once for a bundle.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readBundle, toJS, type Bundle } from '../../runtime/index.js';
import { BundleWorker, type BuildOutcome } from '../../server/control-plane/worker.js';
import type { FakeStore } from './fake-store.js';

export async function tempDir(prefix = 'regent-cp-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Write files (path → text) under `root`. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [p, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true });
    await writeFile(join(root, p), text);
  }
}

export async function buildOnce(store: FakeStore, bundle: string, dataDir: string, cwd = dataDir): Promise<BuildOutcome> {
  const out = await new BundleWorker(bundle, { store, dataDir, cwd }).execute();
  if (!out) throw new Error(`bundle ${bundle} not found`);
  return out;
}

export interface ReadBack {
  bundle: Bundle;
  data: unknown;
  modules: Record<string, string>;
}

export async function readBack(bytes: Uint8Array): Promise<ReadBack> {
  const bundle = await readBundle(Buffer.from(bytes));
  return { bundle, data: toJS(bundle.data), modules: Object.fromEntries(bundle.modules.map((m) => [m.path, m.text])) };
}
