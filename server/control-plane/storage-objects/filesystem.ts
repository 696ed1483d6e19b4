// Filesystem object storage: the bundle is written to `path` (relative to the
// working directory; parent directories are created). The write is atomic
// (temporary file + rename), so a server streaming the file never sees half a
// bundle. The upload is skipped when the file already holds the same bytes —
// checked against the file on disk (OCP keeps only an in-memory digest, so a
// deleted file would not be rewritten; here it is).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { PushError, messageOf } from '../builder/errors.js';
import type { ObjectStore, UploadMeta } from './index.js';

export class FilesystemStore implements ObjectStore {
  readonly location: string;
  private readonly file: string;
  /** Digest of the file as we last saw it, keyed by its size and mtime. */
  private known?: { size: number; mtimeMs: number; sha256: string };

  constructor(path: string, cwd = process.cwd()) {
    if (!path) throw new PushError('object storage: filesystem path is required');
    this.file = resolve(cwd, path);
    this.location = `file://${this.file}`;
  }

  private async currentDigest(): Promise<string | undefined> {
    const st = await stat(this.file).catch(() => undefined);
    if (!st?.isFile()) return undefined;
    if (this.known && this.known.size === st.size && this.known.mtimeMs === st.mtimeMs) return this.known.sha256;
    const sha256 = createHash('sha256').update(await readFile(this.file)).digest('hex');
    this.known = { size: st.size, mtimeMs: st.mtimeMs, sha256 };
    return sha256;
  }

  async upload(bytes: Uint8Array, meta: UploadMeta): Promise<{ uploaded: boolean }> {
    try {
      if ((await this.currentDigest()) === meta.sha256) return { uploaded: false };
      await mkdir(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(tmp, bytes);
      await rename(tmp, this.file);
      const st = await stat(this.file);
      this.known = { size: st.size, mtimeMs: st.mtimeMs, sha256: meta.sha256 };
      return { uploaded: true };
    } catch (e) {
      throw new PushError(`filesystem ${this.file}: ${messageOf(e)}`);
    }
  }
}
