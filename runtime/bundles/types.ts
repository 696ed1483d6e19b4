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
}
