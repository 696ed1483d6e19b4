// Test helpers: build raw tarballs from (path, text) pairs, bypassing the writer,
// so malformed bundles can be produced.
import { gzipSync } from 'node:zlib';
import { tarEntries } from '../../runtime/bundles/index.js';

export async function tarGz(files: Record<string, string | Uint8Array>): Promise<Buffer> {
  const entries = Object.entries(files).map(([path, c]) => ({ path, bytes: typeof c === 'string' ? Buffer.from(c, 'utf8') : c }));
  return gzipSync(await tarEntries(entries));
}
