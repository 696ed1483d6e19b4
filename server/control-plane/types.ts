// Shared types of the control plane's API and storage side. Definition shapes
// (bundles, sources, stacks, secrets, status records) come from contract.ts, the
// agreement with the builder side; this file adds what only the API side needs:
// principals and roles, resource kinds, list pages and the loaded configuration.
import type {
  BundleDef,
  SecretValue,
  SourceDef,
  StackDef,
  StatusRecord,
} from './contract.js';
import type { MetricsConfig } from './metrics.js';

export type {
  BuildScheduler,
  BundleDef,
  Datasource,
  DefinitionStore,
  GitOrigin,
  ObjectStorage,
  Requirement,
  SecretValue,
  SourceDef,
  StackDef,
  StatusRecord,
} from './contract.js';

/** The four kinds of named definition, as stored (singular) and as routed (plural). */
export type Kind = 'bundle' | 'source' | 'stack' | 'secret';

export const KINDS: readonly Kind[] = ['bundle', 'source', 'stack', 'secret'];

/** Definition type per kind; secrets are represented by their name only. */
export interface DefByKind {
  bundle: BundleDef;
  source: SourceDef;
  stack: StackDef;
  secret: { name: string };
}

/**
 * Roles a token can carry (config `tokens.<name>.scopes[0].role`). `engine` is a
 * Regent extension: it may only send status reports (`POST /status`).
 */
export type Role = 'administrator' | 'viewer' | 'owner' | 'stack_owner' | 'engine';

export const ROLES: readonly Role[] = ['administrator', 'viewer', 'owner', 'stack_owner', 'engine'];

/** An authenticated caller: the token name is the principal id. */
export interface Principal {
  id: string;
  role: Role;
}

/** The principal that owns everything loaded from the configuration file. */
export const INTERNAL_PRINCIPAL: Principal = { id: 'internal', role: 'administrator' };

/** A stored status record as returned by the API (adds updated_at to the contract record). */
export interface StatusRow extends StatusRecord {
  updated_at: string;
}

/** Token configuration after env expansion. */
export interface TokenConfig {
  name: string;
  apiKey: string;
  role: Role;
}

/** Database selection after defaults and env expansion. */
export interface DatabaseConfig {
  driver: 'sqlite' | 'postgres';
  /** SQLite: file path (`:memory:` allowed); PostgreSQL: connection string. */
  dsn?: string;
}

/** A validated, normalised configuration file (or merged set of files). */
export interface ControlPlaneConfig {
  bundles: BundleDef[];
  /** Sorted so that every source comes after the sources it requires. */
  sources: SourceDef[];
  stacks: StackDef[];
  secrets: { name: string; value: SecretValue | null }[];
  tokens: TokenConfig[];
  database?: DatabaseConfig;
  /** Prefix of every route, `''` when unset (config `service.api_prefix`). */
  apiPrefix: string;
  /** The `metrics` key as written (metrics.ts); absent means every metric on. */
  metrics?: MetricsConfig;
  /** The `fleet` key (Regent extension), durations in ms; absent means the defaults. */
  fleet?: FleetConfig;
}

/** Engine status reports (fleet/): when an engine counts as stale, when it is forgotten. */
export interface FleetConfig {
  /** `fleet.stale_after` (default 60s). */
  staleAfterMs: number;
  /** `fleet.forget_after` (default 168h): engines silent this long are deleted. */
  forgetAfterMs: number;
}

/** Options of a list query, after parameter parsing. */
export interface ListOptions {
  limit: number;
  /** Row id after which the page starts (decoded cursor). */
  after?: number;
  /** When set, only definitions owned by this principal are listed. */
  owner?: string;
}

/** One page of a list. `nextAfter` is set when more rows exist. */
export interface Page<T> {
  items: T[];
  nextAfter?: number;
}
