// Request parameters as OPA reads them: the raw query string (repeated keys kept),
// boolean params that are true when present without a value or when any value is
// "true", the `explain` mode, and URL paths turned into data paths and Rego refs.
import type { ExplainMode } from '../engine/protocol.js';
import { ApiError, badRequest } from './errors.js';

export class QueryParams {
  private readonly values = new Map<string, string[]>();

  constructor(rawQuery: string) {
    if (rawQuery === '') return;
    for (const [k, v] of new URLSearchParams(rawQuery)) {
      const list = this.values.get(k);
      if (list) list.push(v);
      else this.values.set(k, [v]);
    }
  }

  /** The params of a URL without a query string, shared (instances are never changed). */
  static readonly EMPTY = new QueryParams('');

  /** True when no param is given (the common decision request). */
  get empty(): boolean {
    return this.values.size === 0;
  }

  static fromUrl(url: string): QueryParams {
    const i = url.indexOf('?');
    return i < 0 ? QueryParams.EMPTY : new QueryParams(url.slice(i + 1));
  }

  all(name: string): string[] {
    return this.values.get(name) ?? [];
  }

  /** The last value of a param (OPA uses the last `input` and `q`). */
  last(name: string): string | undefined {
    const list = this.values.get(name);
    return list ? list[list.length - 1] : undefined;
  }

  bool(name: string): boolean {
    const list = this.values.get(name);
    if (!list) return false;
    return list.some((v) => v === '' || v.toLowerCase() === 'true');
  }

  explain(): ExplainMode | undefined {
    for (const v of this.all('explain')) if (v === 'notes' || v === 'fails' || v === 'full' || v === 'debug') return v;
    return undefined;
  }

  /** All params as string arrays (the authz input's `params`). */
  toObject(): Record<string, string[]> {
    return Object.fromEntries(this.values);
  }
}

/** The path part of a request URL (no query string). */
export function urlPath(url: string): string {
  const i = url.indexOf('?');
  return i < 0 ? url : url.slice(0, i);
}

/** Segments of the URL path after `prefix`: split on '/', empty ones dropped, each unescaped. */
export function pathSegments(url: string, prefix: string): string[] {
  const rest = urlPath(url).slice(prefix.length);
  const out: string[] = [];
  for (const raw of rest.split('/')) {
    if (raw === '') continue;
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      throw badRequest(`invalid path: ${raw}`);
    }
  }
  return out;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEYWORDS = new Set(['as', 'contains', 'default', 'else', 'every', 'false', 'if', 'import', 'in', 'not', 'null', 'package', 'some', 'true', 'with']);

/** The Rego query for a data path; integer segments become numbers (OPA's stringPathToRef). */
export function dataQuery(segs: string[]): string {
  let q = 'data';
  for (const s of segs) {
    if (s.includes('"')) throw new ApiError(500, 'internal_error', `invalid_parameter: invalid path: invalid ref term '${s}'`);
    q += /^-?(0|[1-9]\d*)$/.test(s) ? `[${s}]` : `[${JSON.stringify(s)}]`;
  }
  return q;
}

/** A Data API path resolved once: segments, the Rego query, and whether it can be read directly. */
export interface DataPath {
  segs: string[];
  /** The Rego query naming the document, e.g. `data["rbac"]["allow"]`. */
  query: string;
  /** Only plain names: the evaluator reads the document without running the query (integer segments index arrays in the query form). */
  direct: boolean;
  /** The segments joined by NUL: a cache key for the path. */
  key: string;
}

const DATA_PATH_CACHE_LIMIT = 1000;
const dataPaths = new Map<string, DataPath>();

/** A DataPath for given segments (throws for segments that make no valid ref). */
export function toDataPath(segs: string[]): DataPath {
  return { segs, query: dataQuery(segs), direct: segs.every((s) => !/^-?\d+$/.test(s)), key: segs.join('\u0000') };
}

let lastUrl = '';
let lastPrefix = '';
let lastDataPath: DataPath | undefined;

/** The data path of a request URL after `prefix`, cached per URL path (decision traffic repeats a few paths). */
export function dataPath(url: string, prefix: string): DataPath {
  // The previous request's URL, compared as is: no key string to build and hash.
  if (url === lastUrl && prefix === lastPrefix && lastDataPath !== undefined) return lastDataPath;
  const dp = cachedDataPath(url, prefix);
  lastUrl = url;
  lastPrefix = prefix;
  lastDataPath = dp;
  return dp;
}

function cachedDataPath(url: string, prefix: string): DataPath {
  const path = urlPath(url);
  const cacheKey = prefix + '\u0000' + path;
  let dp = dataPaths.get(cacheKey);
  if (dp === undefined) {
    dp = toDataPath(pathSegments(path, prefix));
    if (dataPaths.size >= DATA_PATH_CACHE_LIMIT) dataPaths.clear();
    dataPaths.set(cacheKey, dp);
  }
  return dp;
}

/** A data path as OPA prints refs in messages: `data.a.b`, `data.x["a-b"]`, `data.a[0]`. */
export function refText(segs: string[]): string {
  let out = 'data';
  for (const s of segs) {
    if (/^-?(0|[1-9]\d*)$/.test(s)) out += `[${s}]`;
    else if (IDENT.test(s) && !KEYWORDS.has(s)) out += `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** A config path like `/system/main` or `system/authz/allow` as segments. */
export function configPathSegments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}
