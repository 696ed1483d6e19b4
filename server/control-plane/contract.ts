// The contract between the control plane's API and storage side and its
// builder side (see control-plane-api.md §2 and control-plane-behaviors.md).
// Definitions live in the database; the builder reads them through
// DefinitionStore and reports status records back through it.

export interface Requirement {
  source?: string;
  path?: string;
  prefix?: string;
  git?: { commit: string };
}

/** Object storage variants. The API document writes the clouds as <cloud_a>/<cloud_b>/<cloud_c>. */
export interface ObjectStorage {
  filesystem?: { path: string };
  aws?: { bucket: string; key: string; region?: string; credentials?: string; url?: string };
  gcp?: { project: string; bucket: string; object: string; credentials?: string };
  azure?: { account_url: string; container: string; path: string; credentials?: string };
}

export interface BundleDef {
  name: string;
  labels?: Record<string, string>;
  object_storage?: ObjectStorage;
  requirements?: Requirement[];
  excluded_files?: string[];
  /** Revision template (see notes §5.10); optional. */
  revision?: string;
}

export interface GitOrigin {
  repo: string;
  reference?: string;
  commit?: string;
  path?: string;
  included_files?: string[];
  excluded_files?: string[];
  credentials?: string;
}

export interface Datasource {
  name: string;
  path: string;
  type: string;
  config?: { url: string; headers?: Record<string, string> } & Record<string, unknown>;
  credentials?: string;
  transform_query?: string;
}

export interface SourceDef {
  name: string;
  git?: GitOrigin;
  directory?: string;
  paths?: string[];
  builtin?: string;
  datasources?: Datasource[];
  requirements?: Requirement[];
}

export interface StackDef {
  name: string;
  selector?: Record<string, string[]>;
  exclude_selector?: Record<string, string[]>;
  requirements?: Requirement[];
}

/** A secret value; never returned by any endpoint or written to a log. */
export interface SecretValue {
  type: string;
  token?: string;
  [k: string]: unknown;
}

export interface StatusRecord {
  bundle_name: string;
  revision: string;
  phase: 'BUILD' | 'PUSH' | string;
  status: 'SUCCESS' | 'BUILD_FAILED' | 'PUSH_FAILED' | string;
  error_message?: string;
  created_at: string;
  /**
   * Regent extension: the failed build's Rego errors with their locations (the
   * `error_message` text keeps OPA's `file:row: code: message`, which has no
   * column). Stored beside the record, never part of the spec'd status body.
   */
  errors?: StatusError[];
}

/** One located Rego error of a failed build; `source` when the error was raised inside one source. */
export interface StatusError {
  file: string;
  row: number;
  col: number;
  code: string;
  message: string;
  source?: string;
}

/** What the builder needs from storage. The API side implements it for SQLite and PostgreSQL. */
export interface DefinitionStore {
  listBundles(): Promise<BundleDef[]>;
  getBundle(name: string): Promise<BundleDef | undefined>;
  listSources(): Promise<SourceDef[]>;
  getSource(name: string): Promise<SourceDef | undefined>;
  listStacks(): Promise<StackDef[]>;
  /** Secret value for building (credentials); never exposed through the API. */
  getSecretValue(name: string): Promise<SecretValue | undefined>;
  /** Source data documents stored through the API: path (e.g. `a/b`) → JSON value. */
  listSourceData(source: string): Promise<{ path: string; value: unknown }[]>;
  /** Append a status record (the store keeps the last 10 per bundle). */
  addStatus(record: StatusRecord): Promise<void>;
}

/** What the API side needs from the builder: build on changes, debounced. */
export interface BuildScheduler {
  /** Definitions changed (all bundles when `bundles` is omitted): rebuild soon. */
  notifyChanged(bundles?: string[]): void;
  /** Build this bundle now, without the change debounce (`POST /v1/bundles/{b}/rebuild`); optional. */
  rebuildNow?(bundle: string): void;
  start(): void;
  stop(): Promise<void>;
}
