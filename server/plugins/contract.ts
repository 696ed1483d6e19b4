// The contract between the engine server (server/engine, server/api) and the
// plugins (bundle download, decision logs, status). The server owns the store
// and compilation; plugins call back through PluginHost.
import type { Bundle, Value } from '../../runtime/index.js';

/** Status of one bundle, as OPA's status API and `data.system.bundles` show it. */
export interface BundleStatus {
  name: string;
  active_revision?: string;
  last_successful_activation?: string;
  last_successful_download?: string;
  last_successful_request?: string;
  last_request?: string;
  code?: string;
  message?: string;
  errors?: unknown[];
  http_code?: number;
  metrics?: Record<string, unknown>;
  size?: number;
  type?: 'snapshot' | 'delta';
}

export type PluginState = 'NOT_READY' | 'OK' | 'ERROR' | 'WARN';

/** What the server offers plugins. */
export interface PluginHost {
  /**
   * Atomically activate a bundle: compile its modules with everything else,
   * replace the data under its roots, or throw (leaving the old state active).
   */
  activateBundle(name: string, bundle: Bundle): Promise<void>;
  /** Report a plugin's state (drives /health?plugins and /v1/status). */
  setPluginState(plugin: string, state: PluginState, message?: string): void;
  /** Report a bundle's status (drives /health?bundles, /v1/status, data.system.bundles). */
  setBundleStatus(status: BundleStatus): void;
  /** Labels from the config (id, version, plus user labels). */
  labels(): Record<string, string>;
  /**
   * Optional: evaluate the document at a slash path (e.g. `/system/log/mask`)
   * with `input`; undefined when the document is undefined. Enables decision-log
   * masking and dropping (`mask_decision`, `drop_decision`).
   */
  evaluate?(path: string, input: Value): Promise<Value | undefined>;
  /**
   * Optional, with `evaluate`: false when no rule and no data can define the
   * document at the path, so callers may skip building the input and evaluating.
   */
  mayDefine?(path: string): boolean;
}

/** One decision log event, as OPA uploads it (see engine-behaviors.md §6.1). */
export interface DecisionEvent {
  labels: Record<string, string>;
  decision_id: string;
  path?: string;
  query?: string;
  input?: Value;
  result?: Value;
  bundles?: Record<string, { revision: string }>;
  requested_by?: string;
  timestamp: string;
  metrics?: Record<string, number>;
  erased?: string[];
  masked?: string[];
  error?: unknown;
  /** Handler-specific extras (OPA's `custom`; the Compile API's filters put type, unknowns, options and mask_rule here). */
  custom?: Record<string, unknown>;
}
