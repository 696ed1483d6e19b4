// Writing a Bundle as a deterministic `bundle.tar.gz`, in OPA's layout and
// order (bundle.go Writer.Write): `/data.json` (always, canonical JSON), the
// modules at their paths, wasm modules, `/.signatures.json` when signed, and
// `/.manifest` unless the manifest is empty. A delta bundle writes `/patch.json`
// and the manifest. Every header is fixed (mtime 0, uid/gid 0, mode 0644), so
// the same bundle always yields the same bytes.
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import type { Bundle } from './types.js';
import { toJS, toJSONText } from '../value/index.js';
import { manifestIsEmpty, manifestToJSON, stableJSON } from './manifest.js';
import type { SignaturesConfig } from './verify.js';

const gzip = promisify(gzipCb);

/** The files the writer emits, in order, as (path, bytes). */
export function bundleEntries(bundle: Bundle): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  const withSlash = (p: string): string => (p.startsWith('/') ? p : '/' + p);
  if (bundle.type === 'delta') {
    const ops = (bundle.patch ?? []).map((o) => ({ op: o.op, path: o.path, value: o.value === undefined ? null : toJS(o.value) }));
    out.push({ path: '/patch.json', bytes: Buffer.from(stableJSON({ data: ops }), 'utf8') });
  } else {
    out.push({ path: '/data.json', bytes: Buffer.from(toJSONText(bundle.data), 'utf8') });
    for (const m of bundle.modules) out.push({ path: withSlash(m.path), bytes: Buffer.from(m.text, 'utf8') });
    for (const w of bundle.wasmModules ?? []) out.push({ path: withSlash(w.path), bytes: Buffer.from(w.raw) });
    const sigs = bundle.signatures as SignaturesConfig | undefined;
    if (sigs !== undefined && (sigs.signatures !== undefined || (sigs.plugin ?? '') !== '')) {
      const doc: Record<string, unknown> = {};
      if (sigs.plugin) doc.plugin = sigs.plugin;
      if (sigs.signatures) doc.signatures = sigs.signatures;
      out.push({ path: '/.signatures.json', bytes: Buffer.from(JSON.stringify(doc, null, ' '), 'utf8') });
    }
  }
  if (!manifestIsEmpty(bundle.manifest)) out.push({ path: '/.manifest', bytes: Buffer.from(manifestToJSON(bundle.manifest), 'utf8') });
  return out;
}

/** An uncompressed tar of the entries. */
export async function tarEntries(entries: { path: string; bytes: Uint8Array }[]): Promise<Buffer> {
  const { pack: tarPack } = await import('tar-stream'); // loaded on first use: CLI start-up
  const p = tarPack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    p.on('data', (c: unknown) => void chunks.push(c as Buffer));
    p.on('end', () => resolve());
    p.on('error', reject);
  });
  const mtime = new Date(0);
  for (const e of entries) {
    await new Promise<void>((resolve, reject) => {
      p.entry({ name: e.path, size: e.bytes.byteLength, mode: 0o644, mtime, uid: 0, gid: 0, type: 'file' }, Buffer.from(e.bytes), (err) => (err ? reject(err) : resolve()));
    });
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** Serialize a bundle to `bundle.tar.gz` bytes. */
export async function writeBundle(bundle: Bundle): Promise<Buffer> {
  return gzip(await tarEntries(bundleEntries(bundle)), { level: 9 });
}
