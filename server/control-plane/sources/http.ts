// HTTP (and S3) datasources of a source, and their transform_query.
// `type: http` — config {url, method (GET), body (string), headers (map; only
// non-empty string values are sent)} plus optional credentials (credentials.ts).
// The raw response body is stored at `<path>/data.json`; non-2xx is
// `unsuccessful status code N` (4xx: a user error). `type: s3` reads one object
// ({bucket, key, region, endpoint}). Other types are ignored.
// transform_query: evaluated with our engine, input = the fetched JSON, with the
// source's own Rego and data loaded (so a transform module can live in the same
// source); the file is replaced by the single result value, or by an array of
// all values when the query yields ≠ 1 result.
import { compile, RegoErrors } from '../../../compiler/index.js';
import { fromJS, parseJSON, toJSONText, type Value } from '../../../runtime/index.js';
import type { Datasource, SourceDef } from '../contract.js';
import { SyncError, TransformError, messageOf } from '../builder/errors.js';
import { mergeDataFiles, formatRegoErrors } from '../builder/bundle.js';
import { bytesText, hashTree, isRegoFile, textBytes, type FileTree } from '../builder/files.js';
import { httpAuth, requireSecret, type SecretLookup } from './credentials.js';
import { getS3Object } from '../storage-objects/s3.js';

export const MAX_DATASOURCE_BYTES = 64 * 1024 * 1024;

export interface DatasourcePart {
  tree: FileTree;
  /** input.sources[s].http[<ds>].hash (and .s3) per datasource name. */
  hashes: { http: Record<string, { hash: string }>; s3: Record<string, { hash: string }> };
}

export function datasourceDir(ds: Datasource): string {
  return ds.path.split('/').filter((s) => s !== '' && s !== '.').join('/');
}

export async function fetchDatasources(def: SourceDef, secrets: SecretLookup, timeoutMs = 30_000): Promise<DatasourcePart> {
  const part: DatasourcePart = { tree: new Map(), hashes: { http: {}, s3: {} } };
  for (const ds of def.datasources ?? []) {
    const where = `source "${def.name}": datasource "${ds.name}"`;
    let body: Uint8Array;
    if (ds.type === 'http') body = await fetchHttp(ds, secrets, timeoutMs, where);
    else if (ds.type === 's3') body = await fetchS3(ds, secrets, where);
    else continue;
    const dir = datasourceDir(ds);
    const file = dir ? `${dir}/data.json` : 'data.json';
    part.tree.set(file, body);
    (ds.type === 'http' ? part.hashes.http : part.hashes.s3)[ds.name] = { hash: hashTree([[file.slice(dir ? dir.length + 1 : 0), body]]) };
  }
  return part;
}

async function fetchHttp(ds: Datasource, secrets: SecretLookup, timeoutMs: number, where: string): Promise<Uint8Array> {
  const cfg = (ds.config ?? {}) as Record<string, unknown>;
  if (typeof cfg.url !== 'string' || cfg.url === '') throw new SyncError(`${where}: url is required`, true);
  const auth = await httpAuth(ds.credentials ? await requireSecret(secrets, ds.credentials) : undefined, timeoutMs);
  const url = new URL(cfg.url);
  for (const [k, v] of Object.entries(auth.query)) url.searchParams.set(k, v);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries((cfg.headers ?? {}) as Record<string, unknown>)) {
    if (typeof v === 'string' && v !== '') headers[k.toLowerCase()] = v;
  }
  Object.assign(headers, auth.headers);
  let res: Response;
  try {
    res = await fetch(url, {
      method: typeof cfg.method === 'string' && cfg.method ? cfg.method.toUpperCase() : 'GET',
      headers,
      body: typeof cfg.body === 'string' && cfg.body !== '' ? cfg.body : undefined,
      signal: AbortSignal.timeout(timeoutMs),
      ...(auth.dispatcher ? { dispatcher: auth.dispatcher } : {}),
    } as RequestInit);
  } catch (e) {
    throw new SyncError(`${where}: ${url.origin}${url.pathname}: ${messageOf((e as { cause?: unknown }).cause ?? e)}`);
  } finally {
    void auth.dispatcher?.close();
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel();
    throw new SyncError(`${where}: unsuccessful status code ${res.status}`, res.status >= 400 && res.status < 500);
  }
  const buf = new Uint8Array(await res.arrayBuffer());
  if (buf.byteLength > MAX_DATASOURCE_BYTES) throw new SyncError(`${where}: response larger than ${MAX_DATASOURCE_BYTES} bytes`, true);
  return buf;
}

async function fetchS3(ds: Datasource, secrets: SecretLookup, where: string): Promise<Uint8Array> {
  const cfg = (ds.config ?? {}) as Record<string, unknown>;
  const s = (k: string): string => (typeof cfg[k] === 'string' ? (cfg[k] as string) : '');
  const creds = ds.credentials ? await requireSecret(secrets, ds.credentials) : undefined;
  try {
    return await getS3Object({ bucket: s('bucket'), key: s('key'), region: s('region') || 'us-east-1', url: s('endpoint') || undefined }, creds);
  } catch (e) {
    const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
    throw new SyncError(`${where}: ${messageOf(e)}`, status >= 400 && status < 500);
  }
}

/**
 * Apply the transform_query of every datasource of `def`, rewriting its file in
 * `dsTree`. `parts` are all parts of the source (its Rego and data are loaded).
 */
export function applyTransforms(def: SourceDef, parts: FileTree[], dsTree: FileTree): void {
  const withQuery = (def.datasources ?? []).filter((ds) => ds.transform_query && dsTree.has(fileOf(ds)));
  if (withQuery.length === 0) return;
  const v0 = !parts.some((p) => p.has('.manifest') && /"rego_version"\s*:\s*1/.test(bytesText(p.get('.manifest')!)));
  const modules = parts.flatMap((p, i) =>
    [...p].filter(([f]) => isRegoFile(f)).map(([f, b]) => ({ file: `${def.name}/${i}/${f}`, text: bytesText(b) })),
  );
  for (const ds of withQuery) {
    const where = `source "${def.name}": datasource "${ds.name}": transform`;
    const file = fileOf(ds);
    let input: Value;
    try {
      input = parseJSON(bytesText(dsTree.get(file)!));
    } catch (e) {
      throw new TransformError(`${where}: failed to unmarshal content: ${messageOf(e)}`);
    }
    try {
      const data = fromJS(mergeDataFiles(parts.flatMap((p) => [...p]), (f) => f));
      const query = ds.transform_query!;
      const rows = compile(modules, { v0Compatible: v0 }).prepare(query).eval({ input, data });
      const values = rows.flatMap((r) =>
        r.expressions.length === 1 ? [r.expressions[0]!.value] : r.expressions.filter((e) => e.text === query).map((e) => e.value),
      );
      const out = values.length === 1 ? values[0]! : values;
      dsTree.set(file, textBytes(toJSONText(out)));
    } catch (e) {
      throw new TransformError(`${where}: ${e instanceof RegoErrors ? formatRegoErrors(e) : messageOf(e)}`);
    }
  }
}

function fileOf(ds: Datasource): string {
  const dir = datasourceDir(ds);
  return dir ? `${dir}/data.json` : 'data.json';
}
