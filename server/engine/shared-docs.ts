// Large JSON documents written through the Data API. The body's bytes are copied
// once into shared memory; each worker builds its own value from them in slices
// (runtime/store/json-builder.ts: a big object's small members stay as bytes until
// first read, runtime/store/lazy-object.ts) while it keeps answering decisions, and the main
// thread keeps only a lazy placeholder that builds the value on first use (a write
// below it, a main-thread policy reading it). Snapshots for restarted workers send
// the bytes again instead of serializing the value.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { JSONBuildError, RObject, buildDocument, buildDocumentSync, goJSONError, toJSONText, type Value } from '../../runtime/index.js';
import { BadRequestError } from './errors.js';
import type { SharedDocument } from './protocol.js';

/** The error of a document that does not fit under a thread's heap ceiling (a 500). */
export const DOCUMENT_TOO_LARGE = 'the document does not fit in the heap limit of the thread building it (--worker-heap-mb)';

/** Bodies from this size on take the shared-document path. */
export const LARGE_DOCUMENT_BYTES = 1 << 20;

let nextId = 1;

/** Documents behind main-thread placeholders (and values written as documents). */
const sources = new WeakMap<object, SharedDocument>();
/** Values that are the `value` of an operation in a shared JSON Patch document. */
const members = new WeakMap<object, { doc: SharedDocument; member: number }>();
/** Placeholder arrays not loaded yet. */
const lazyArrays = new WeakSet<object>();

/** Bytes copied into shared memory per turn of the event loop. */
const COPY_SLICE = 4 << 20;

/** Copy body bytes into shared memory (a few MB per turn of the event loop). */
export async function shareBytes(body: Uint8Array): Promise<SharedDocument> {
  // A body already read into shared memory (api/body-reader.ts) is used as it is.
  if (body.buffer instanceof SharedArrayBuffer && body.byteOffset === 0) return { id: nextId++, bytes: body.buffer, length: body.byteLength };
  const bytes = new SharedArrayBuffer(body.byteLength);
  const target = new Uint8Array(bytes);
  for (let at = 0; at < body.byteLength; at += COPY_SLICE) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    target.set(body.subarray(at, Math.min(body.byteLength, at + COPY_SLICE)), at);
  }
  return { id: nextId++, bytes, length: body.byteLength };
}

export function documentBytes(doc: SharedDocument): Uint8Array {
  return new Uint8Array(doc.bytes, 0, doc.length);
}

/** Bytes from a syntax error's resume point that Go's scanner is given first (a run and a member fit). */
const ERROR_WINDOW = 1 << 20;

/** The 400 message for a body that is not a JSON document, worded as OPA (Go) words it. */
export function documentError(e: unknown, bytes: Uint8Array): { kind: 'syntax' | 'depth' | 'memory'; message: string } {
  if (e instanceof JSONBuildError && e.kind === 'depth') return { kind: 'depth', message: 'exceeded max depth' };
  if (e instanceof JSONBuildError && e.kind === 'memory') return { kind: 'memory', message: DOCUMENT_TOO_LARGE };
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (e instanceof JSONBuildError && e.resume) {
    // Scanning a 50 MB text took Go's scanner port 1.5-3 s on the loaded machine, all
    // that time in the thread that answers decisions: scan from where the builder
    // failed instead (see JSONBuildError.resume), and the whole text only if the window
    // ends before Go's scanner finds the error.
    const { prefix, from } = e.resume;
    const end = Math.min(buf.length, from + ERROR_WINDOW);
    const message = goJSONError(prefix + buf.toString('utf8', from, end));
    if (message && message !== 'EOF' && (end === buf.length || message !== 'unexpected EOF')) return { kind: 'syntax', message };
  }
  const text = buf.toString('utf8');
  const message = goJSONError(text);
  return { kind: 'syntax', message: message || 'invalid JSON' };
}

/** Build a document on this thread in slices (in-process evaluation); BadRequestError when invalid or empty. */
export async function buildLocal(body: Uint8Array, maxDepth: number): Promise<Value> {
  let value: Value | undefined;
  try {
    value = await buildDocument(body, { maxDepth });
  } catch (e) {
    if (e instanceof JSONBuildError && e.kind === 'memory') throw new Error(DOCUMENT_TOO_LARGE);
    if (e instanceof JSONBuildError) throw new BadRequestError(documentError(e, body).message);
    throw e;
  }
  if (value === undefined) throw new BadRequestError('EOF');
  return value;
}

function load(doc: SharedDocument, maxDepth: number): Value {
  const v = buildDocumentSync(documentBytes(doc), { maxDepth });
  if (v === undefined) throw new BadRequestError('EOF');
  return v;
}

/** An array that builds its elements on first use. */
function lazyArray(loadItems: () => Value[]): Value[] {
  const target: Value[] = [];
  let loaded = false;
  const ensure = (): Value[] => {
    if (!loaded) {
      loaded = true;
      const items = loadItems();
      for (let i = 0; i < items.length; i++) target.push(items[i]!);
      lazyArrays.delete(proxy);
    }
    return target;
  };
  const proxy: Value[] = new Proxy(target, {
    get: (_t, k) => Reflect.get(ensure(), k),
    has: (_t, k) => Reflect.has(ensure(), k),
    ownKeys: () => Reflect.ownKeys(ensure()),
    getOwnPropertyDescriptor: (_t, k) => Reflect.getOwnPropertyDescriptor(ensure(), k),
    set: (_t, k, v) => Reflect.set(ensure(), k, v),
    deleteProperty: (_t, k) => Reflect.deleteProperty(ensure(), k),
    defineProperty: (_t, k, d) => Reflect.defineProperty(ensure(), k, d),
  });
  lazyArrays.add(proxy);
  return proxy;
}

/**
 * The main thread's value for a document the workers build: a placeholder for an
 * object or array (built from the bytes on first use), the value itself otherwise.
 */
export function placeholder(doc: SharedDocument, maxDepth: number, keys?: string[]): Value {
  const bytes = documentBytes(doc);
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  let value: Value;
  if (bytes[i] === 0x7b) value = RObject.lazy(() => load(doc, maxDepth) as RObject, keys);
  else if (bytes[i] === 0x5b) value = lazyArray(() => load(doc, maxDepth) as Value[]);
  else return load(doc, maxDepth);
  sources.set(value as object, doc);
  return value;
}

/** Record that `value` (a container) is the document the workers prepared as `doc`. */
export function registerDocument(value: Value, doc: SharedDocument): void {
  if (value !== null && typeof value === 'object') sources.set(value, doc);
}

/** The shared document (or patch operation of one) a value was written from, if any. */
export function sharedSource(v: Value | undefined): { doc: SharedDocument; member?: number } | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const doc = sources.get(v);
  return doc ? { doc } : members.get(v);
}

/**
 * Record that the `value` members of a patch document (an array of operations the
 * workers prepared as `doc`) are its elements' values, so that writes of them travel
 * as references. Scalars are left out (they travel as text, cheaply).
 */
export function registerPatchValues(doc: SharedDocument, patch: Value): void {
  if (!Array.isArray(patch)) return;
  for (let i = 0; i < patch.length; i++) {
    const op = patch[i];
    const v = op instanceof RObject ? op.getStr('value') : undefined;
    if (v !== null && typeof v === 'object' && !members.has(v)) members.set(v, { doc, member: i });
  }
}

/** The value of operation `member` of a prepared patch document. */
export function patchMember(patch: Value, member: number): Value | undefined {
  const op = Array.isArray(patch) ? patch[member] : undefined;
  return op instanceof RObject ? op.getStr('value') : undefined;
}

/** True while a placeholder has not been built on this thread. */
function pending(v: object): boolean {
  return RObject.isLazy(v) || lazyArrays.has(v);
}

/**
 * JSON text of the base document for a worker snapshot: placeholders not built yet
 * are written as null and listed with their documents, so that the worker builds
 * them from the bytes (nothing is built on the main thread).
 */
export function snapshotData(root: RObject): { dataText: string; docs: { path: string[]; doc: SharedDocument }[] } {
  const docs: { path: string[]; doc: SharedDocument }[] = [];
  const write = (v: Value, path: string[]): string => {
    if (v !== null && typeof v === 'object' && pending(v)) {
      docs.push({ path: [...path], doc: sources.get(v)! });
      return 'null';
    }
    if (v instanceof RObject) {
      let out = '';
      let complex = false;
      v.forEachUnordered((k, x) => {
        if (typeof k !== 'string') complex = true;
        return complex;
      });
      if (complex) return toJSONText(v); // non-string keys come only from evaluation, never from documents
      v.forEachUnordered((k, x) => {
        path.push(k as string);
        out += (out ? ',' : '') + JSON.stringify(k) + ':' + write(x, path);
        path.pop();
        return false;
      });
      return '{' + out + '}';
    }
    if (Array.isArray(v)) {
      const parts: string[] = [];
      for (let i = 0; i < v.length; i++) {
        path.push(String(i));
        parts.push(write(v[i]!, path));
        path.pop();
      }
      return '[' + parts.join(',') + ']';
    }
    return toJSONText(v);
  };
  return { dataText: write(root, []), docs };
}

let gc: ((opts: { type: 'minor' | 'major'; execution: 'sync' }) => void) | null | undefined;
let gcScheduled = false;

/**
 * Collect the young generation on this thread shortly after a large write: the
 * main thread allocates little, so without this the body's chunks (as big as the
 * document, held by young wrappers) could stay resident until some later request.
 * A minor collection frees them in a few ms; a full one (the earlier choice) paused
 * this thread, which answers every request, for 30–140 ms on the loaded 2-core machine.
 */
export function collectSoon(): void {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as typeof gc;
    } catch {
      gc = null;
    }
  }
  if (!gc || gcScheduled) return;
  gcScheduled = true;
  setTimeout(() => {
    gcScheduled = false;
    gc?.({ type: 'minor', execution: 'sync' });
  }, 50).unref();
}
