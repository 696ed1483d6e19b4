// Reading an OPA bundle tarball (`bundle.tar.gz`): gunzip with a bound on the
// decompressed size (gzip bombs), walk the tar entries with tar-stream keeping
// only regular files (directories, links and devices are skipped, as OPA's
// tarball loader does), refuse entries over the per-file size limit before
// reading them, then hand the files to loadBundleFiles for the bundle rules.
import { promisify } from 'node:util';
import { gunzip as gunzipCb } from 'node:zlib';
import { constants as bufferConstants } from 'node:buffer';
import { Readable } from 'node:stream';
import type { Bundle } from './types.js';
import { BundleError, messageOf } from './errors.js';
import { DEFAULT_MAX_FILES, DEFAULT_SIZE_LIMIT_BYTES, loadBundleFiles, type BundleFile, type ReadOptions } from './load.js';

const gunzip = promisify(gunzipCb);

export interface ArchiveOptions extends ReadOptions {
  /** Bound on the whole decompressed tar stream; default 2 GiB (or the platform maximum). */
  maxArchiveBytes?: number;
}

const DEFAULT_MAX_ARCHIVE_BYTES = 2 * 1024 * 1024 * 1024;

/** Gunzip and untar into raw files (paths as written in the archive). */
export async function extractTarGz(archive: Uint8Array, opts: ArchiveOptions = {}): Promise<BundleFile[]> {
  const maxOut = Math.min(opts.maxArchiveBytes ?? DEFAULT_MAX_ARCHIVE_BYTES, bufferConstants.MAX_LENGTH);
  let tar: Buffer;
  try {
    tar = await gunzip(archive, { maxOutputLength: maxOut });
  } catch (e) {
    const msg = e instanceof RangeError || /maxOutputLength|larger than/.test(messageOf(e)) ? `decompressed bundle exceeds ${maxOut} bytes` : messageOf(e);
    throw new BundleError('archive', `archive read failed: ${msg}`);
  }
  return untar(tar, opts);
}

async function untar(tar: Buffer, opts: ReadOptions): Promise<BundleFile[]> {
  const limit = opts.sizeLimitBytes ?? DEFAULT_SIZE_LIMIT_BYTES;
  const maxFiles = opts.maxFiles ?? DEFAULT_MAX_FILES;
  const files: BundleFile[] = [];
  const { extract: tarExtract } = await import('tar-stream'); // loaded on first use: CLI start-up
  const ex = tarExtract();
  Readable.from([tar]).pipe(ex);
  let entries = 0;
  try {
    for await (const entry of ex) {
      const h = entry.header;
      if (++entries > maxFiles * 2) throw new BundleError('size', `bundle contains too many files (limit ${maxFiles})`);
      if (h.type !== 'file' && h.type !== 'contiguous-file') {
        entry.resume();
        continue;
      }
      const size = h.size ?? 0;
      if (size > limit) {
        throw new BundleError('size', `bundle file ${h.name} size (${size} bytes) exceeds configured size_limit_bytes (${limit} bytes)`);
      }
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      files.push({ path: h.name, bytes: Buffer.concat(chunks) });
      if (files.length > maxFiles) throw new BundleError('size', `bundle contains too many files (limit ${maxFiles})`);
    }
  } catch (e) {
    ex.destroy();
    if (e instanceof BundleError) throw e;
    throw new BundleError('archive', `archive read failed: ${messageOf(e)}`);
  }
  return files;
}

/** Read a `bundle.tar.gz` into a Bundle (throws BundleError with OPA's messages). */
export async function readBundle(archive: Uint8Array, opts: ArchiveOptions = {}): Promise<Bundle> {
  const files = await extractTarGz(archive, opts);
  return loadBundleFiles(files, opts);
}
