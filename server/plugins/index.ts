// Starting the plugins from an OPA config: `services`, `keys`, `bundles`,
// `decision_logs`, `status`, `labels`, `persistence_directory`. The server calls
// startPlugins(config, host) once; it validates everything first (a bad config
// throws PluginConfigError/ServiceConfigError before anything starts), loads
// persisted bundles, then starts the pollers. Bundle and plugin status flow
// through a wrapped host so the status plugin sees every change the host does.
// The deprecated single `bundle` key is accepted (it wins over `bundles`, with
// OPA's deprecation warning); `file://` bundle sources need no service client.
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import { checkAlgorithm, type KeyConfig } from '../../runtime/index.js';
import type { BundleStatus, DecisionEvent, PluginHost, PluginState } from './contract.js';
import { PluginConfigError, parseBundleSources } from './bundle-config.js';
import { BundleDownloader, type DownloaderOptions } from './bundle.js';
import { DecisionLogger, parseDecisionLogsConfig } from './decision-logs.js';
import { ServiceClient, parseServices, type ServiceConfig } from './services.js';
import { StatusReporter, parseStatusConfig, type StatusDocument } from './status.js';
import { silentLogger, type PluginLogger } from './util.js';

export { PluginConfigError } from './bundle-config.js';
export { ServiceConfigError, ServiceClient, parseServices } from './services.js';
export { BundleDownloader } from './bundle.js';
export { DecisionLogger } from './decision-logs.js';
export { StatusReporter, type StatusDocument } from './status.js';
export type { BundleStatus, DecisionEvent, PluginHost, PluginState } from './contract.js';

export interface PluginOptions {
  logger?: PluginLogger;
  /** Where `decision_logs.console` / `status.console` print (default: stderr, OPA's logrus JSON lines). */
  consoleLogger?: PluginLogger;
  /** User-Agent of every plugin request. */
  userAgent?: string;
  /** Default Rego version of bundle modules: 0 under --v0-compatible. */
  v0Compatible?: boolean;
  /** Package resolver for bundle modules (e.g. built on the compiler's parser). */
  packageOf?: DownloaderOptions['packageOf'];
  /** Overrides `persistence_directory` (default `$PWD/.opa`). */
  persistenceDirectory?: string;
  /** Extra (inner) metrics merged into the status document's `metrics.prometheus`. */
  metrics?: () => Record<string, unknown>;
  /**
   * The engine's Prometheus registry: gathered into the status document's
   * `metrics.prometheus`, and where `status.prometheus: true` registers OPA's
   * status collectors (so /metrics shows them).
   */
  prometheus?: Registry;
  random?: () => number;
}

export interface RunningPlugins {
  /** Stop every poller and uploader (one last bounded decision-log upload). */
  stop(): Promise<void>;
  /** Hand one decision to the decision logs plugin (no-op when not configured); never rejects. */
  logDecision(event: DecisionEvent): void | Promise<void>;
  /** logDecision reads events with rendered input/result fields (event-json.ts RENDERED). */
  readonly rendersEvents: true;
  /** True when decision logging is configured (the server then returns decision_id). */
  readonly decisionLogsEnabled: boolean;
  /** The current status document (as the status plugin would send it; gathers the registry). */
  status(): Promise<StatusDocument>;
  /** True when the deprecated single `bundle` key configured the bundle plugin. */
  readonly legacyBundle: boolean;
  /** Run one download of every bundle now (for `trigger: manual`). */
  triggerBundles(): Promise<void>;
  /** Upload buffered decision logs now. */
  flushDecisionLogs(): Promise<boolean>;
  readonly downloaders: ReadonlyMap<string, BundleDownloader>;
}

function parseKeys(raw: unknown): Record<string, KeyConfig> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new PluginConfigError('keys: must be an object keyed by key id');
  const keys: Record<string, KeyConfig> = {};
  for (const [id, k] of Object.entries(raw as Record<string, unknown>)) {
    if (k === null || typeof k !== 'object') throw new PluginConfigError(`keys.${id}: must be an object`);
    const kc = k as KeyConfig;
    try {
      checkAlgorithm(kc.algorithm ?? 'RS256');
    } catch (e) {
      throw new PluginConfigError(`keys.${id}: ${(e as Error).message}`);
    }
    keys[id] = kc;
  }
  return keys;
}

/** Validate the config and start the configured plugins. */
export async function startPlugins(config: Record<string, unknown>, host: PluginHost, opts: PluginOptions = {}): Promise<RunningPlugins> {
  const logger = opts.logger ?? silentLogger;
  const services = parseServices(config.services);
  const keys = parseKeys(config.keys);
  const { sources: bundleConfigs, legacy } = parseBundleSources(config, services, keys);
  if (legacy) logger.warn({}, "Deprecated 'bundle' configuration specified. Use 'bundles' instead. See https://www.openpolicyagent.org/docs/latest/configuration/#bundles");
  const logsConfig = parseDecisionLogsConfig(config.decision_logs, services);
  const statusConfig = parseStatusConfig(config.status, services);

  const clients = new Map<string, ServiceClient>();
  const client = (name: string | undefined): ServiceClient | undefined => {
    if (name === undefined) return undefined;
    let c = clients.get(name);
    if (!c) {
      c = new ServiceClient(services.get(name) as ServiceConfig, opts.userAgent);
      clients.set(name, c);
    }
    return c;
  };

  const reporter = new StatusReporter(statusConfig ?? { resource: '/status', console: false }, client(statusConfig?.service), () => host.labels(), logger, {
    ...(opts.prometheus ? { registry: opts.prometheus } : {}),
    ...(opts.metrics ? { inner: opts.metrics } : {}),
  }, opts.consoleLogger);
  const wrapped: PluginHost = {
    activateBundle: (name, bundle) => host.activateBundle(name, bundle),
    setBundleStatus: (s: BundleStatus) => {
      host.setBundleStatus(s);
      reporter.setBundle(s);
    },
    setPluginState: (plugin: string, state: PluginState, message?: string) => {
      host.setPluginState(plugin, state, message);
      reporter.setPlugin(plugin, state, message);
    },
    labels: () => host.labels(),
    ...(host.evaluate ? { evaluate: host.evaluate.bind(host) } : {}),
    ...(host.mayDefine ? { mayDefine: host.mayDefine.bind(host) } : {}),
  };

  if (statusConfig) {
    wrapped.setPluginState('status', 'OK');
    reporter.start();
  }

  const downloaders = new Map<string, BundleDownloader>();
  const allActivated = (): boolean => [...downloaders.values()].every((d) => d.activated);
  // The bundle plugin's state: NOT_READY until every bundle was activated once (as
  // OPA); then OK, or WARN ("operating, but degraded": the last download or
  // activation of some bundle failed and its previous revision is still serving)
  // until that bundle downloads again. /health?plugins and /v1/status show the
  // WARN; /health?bundles only asks for the activation (server/engine/host.ts).
  const bundleState = (): void => {
    if (!allActivated()) return;
    const failing = [...downloaders.values()].map((d) => d.status()).filter((st) => st.code !== undefined);
    if (failing.length === 0) wrapped.setPluginState('bundle', 'OK');
    else wrapped.setPluginState('bundle', 'WARN', failing.map((st) => `bundle ${st.name}: ${st.message ?? st.code}`).join('; '));
  };
  if (bundleConfigs.length > 0) {
    wrapped.setPluginState('bundle', 'NOT_READY');
    const persistenceDirectory = opts.persistenceDirectory ?? (typeof config.persistence_directory === 'string' ? config.persistence_directory : join(process.cwd(), '.opa'));
    for (const cfg of bundleConfigs) {
      downloaders.set(
        cfg.name,
        new BundleDownloader(cfg, cfg.file !== undefined ? undefined : client(cfg.service), wrapped, {
          logger,
          persistenceDirectory,
          defaultRegoVersion: opts.v0Compatible ? 0 : 1,
          ...(opts.packageOf ? { packageOf: opts.packageOf } : {}),
          ...(opts.random ? { random: opts.random } : {}),
          onActivated: () => bundleState(),
          onStatus: () => bundleState(),
        }),
      );
    }
    for (const d of downloaders.values()) await d.loadPersisted();
    for (const d of downloaders.values()) d.start();
  }

  let logs: DecisionLogger | undefined;
  if (logsConfig) {
    logs = new DecisionLogger(logsConfig, client(logsConfig.service), wrapped, logger, (s) => reporter.setDecisionLogs(s), opts.consoleLogger);
    wrapped.setPluginState('decision_logs', 'OK');
    logs.start();
  }

  return {
    decisionLogsEnabled: logs !== undefined,
    legacyBundle: legacy,
    downloaders,
    logDecision: (event) => logs?.log(event),
    rendersEvents: true,
    status: () => reporter.document(),
    triggerBundles: async () => {
      await Promise.all([...downloaders.values()].map((d) => d.trigger()));
    },
    flushDecisionLogs: () => (logs ? logs.flush() : Promise.resolve(true)),
    stop: async () => {
      await Promise.all([...downloaders.values()].map((d) => d.stop()));
      await logs?.stop();
      await reporter.stop();
      await Promise.all([...clients.values()].map((c) => c.close()));
    },
  };
}
