// The OPA bundle, in memory. Read and written by runtime/bundles/*, activated by
// the engine server. Paths of modules are bundle-relative (`/x/y/policy.rego`).
import type { Value } from '../value/value.js';

export interface BundleManifest {
  revision?: string;
  /** Paths under data owned by the bundle; [""] (default) owns everything. */
  roots?: string[];
  rego_version?: number;
  /** Per-file rego versions, glob → version (OPA's file_rego_versions). */
  file_rego_versions?: Record<string, number>;
  metadata?: Record<string, unknown>;
  wasm?: unknown[];
}

export interface BundleModule {
  /** Bundle-relative path, e.g. `/authz/policy.rego`. */
  path: string;
  text: string;
  /** Rego version this module is parsed with (manifest `rego_version` / `file_rego_versions`), set by the reader. */
  regoVersion?: 0 | 1;
  /** Package path segments (`package a.b` → ["a","b"]), set by the reader. */
  packagePath?: string[];
}

/** One operation of a delta bundle's `patch.json`. */
export interface BundlePatchOperation {
  op: 'upsert' | 'remove' | 'replace';
  /** Slash-separated data path, e.g. `/a/b`. */
  path: string;
  value?: Value;
}

export interface Bundle {
  manifest: BundleManifest;
  modules: BundleModule[];
  /** The merged base document from every data.json / data.yaml at its path. */
  data: Value;
  /** Raw `.signatures.json`, if present. */
  signatures?: unknown;
  /** ETag of the download this bundle came from. */
  etag?: string;
  /** `delta` when the bundle holds only `patch.json` (then `patch` is set); default snapshot. */
  type?: 'snapshot' | 'delta';
  /** The operations of a delta bundle. */
  patch?: BundlePatchOperation[];
  /** Wasm modules shipped in the bundle (raw bytes, by bundle path); kept, not executed. */
  wasmModules?: { path: string; raw: Uint8Array }[];
}
