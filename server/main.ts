// Starting the engine server for `regent run --server`: load the configuration
// (file, --set), check the listener options (addresses, TLS files), build the
// Fastify app, load the given paths, start the configured plugins (bundles,
// decision logs, status), start the listeners (server/listeners.ts), and shut
// down gracefully on SIGINT/SIGTERM: in-flight requests get up to
// --shutdown-grace-period seconds (OPA's default 10) to finish.
import type { FastifyInstance } from 'fastify';
import { loadConfig } from './config/config.js';
import { buildServer, type BuildServerOptions } from './index.js';
import { loadPaths } from './engine/loader.js';
import { planListeners, startListeners, type Listeners, type MinTLSVersion } from './listeners.js';
import { startPlugins } from './plugins/index.js';
import type { AuthenticationMode, AuthorizationMode } from './auth/identity.js';

export interface StartOptions {
  /**
   * Listen addresses (OPA's repeatable --addr): `localhost:8181`, `:8181`,
   * `http://host:port`, `https://host:port`, `unix:///path/to.sock`. Default
   * `localhost:8181`; https when no scheme is given and a certificate is set.
   */
  addrs?: string[];
  /** One listen address (the same as `addrs: [addr]`; `addrs` wins). */
  addr?: string;
  /** Listeners serving only /health* and /metrics (--diagnostic-addr). */
  diagnosticAddrs?: string[];
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** CA certificates client certificates are verified against (--authentication=tls). */
  tlsCACertFile?: string;
  /** Minimum TLS version of https listeners (default 1.2). */
  minTLSVersion?: MinTLSVersion;
  /** Octal permissions of unix socket files (default 755). */
  unixSocketPerm?: string;
  /** Go / IANA names of the allowed TLS 1.0–1.2 cipher suites (default: Node's). */
  tlsCipherSuites?: string[];
  /** Poll the TLS files every this many ms; 0 (default): reload them when they change on disk. */
  tlsCertRefreshMs?: number;
  /** Serve prior-knowledge HTTP/2 (h2c) besides HTTP/1.1 on http and unix listeners. */
  h2c?: boolean;
  /** Seconds in-flight requests get to finish when the server closes (default 10, as OPA). */
  shutdownGracePeriod?: number;
  /** Seconds to keep serving after a shutdown is requested, before it starts (OPA's --shutdown-wait-period, default 0). */
  shutdownWaitPeriod?: number;
  configFile?: string;
  sets?: string[];
  authentication?: AuthenticationMode;
  authorization?: AuthorizationMode;
  v0Compatible?: boolean;
  /** Policy/data files, directories and bundles to load at start. */
  paths?: string[];
  /** Treat every directory path as a bundle (`--bundle`). */
  bundles?: boolean;
  workers?: number;
  evalTimeoutMs?: number;
  /** Evaluation limits (see server/README.md, Limits); defaults in server/engine/engine.ts. */
  maxCollectionSize?: number;
  workerHeapMb?: number;
  /** Back end of Data API decisions (`--backend`; default: the config's `regent.backend`, else js). */
  backend?: 'js' | 'wasm';
  version: string;
  logLevel?: string;
}

export interface RunningServer {
  app: FastifyInstance;
  /** The base URL of the first listener, e.g. http://127.0.0.1:8181 (unix://path for sockets). */
  url: string;
  /** The URLs of all listeners: the --addr ones in order, then the diagnostic ones. */
  urls: string[];
  /** The URLs of the diagnostic listeners. */
  diagnosticUrls: string[];
  /**
   * Stop accepting connections, let in-flight requests finish within the grace
   * period, then close the app (plugins, engine). Rejects (after closing
   * everything) when requests were still running at the deadline.
   */
  close(): Promise<void>;
}

function hasPlugins(doc: Record<string, unknown>): boolean {
  return ['bundles', 'bundle', 'decision_logs', 'status', 'discovery'].some((k) => doc[k] !== undefined && doc[k] !== null);
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const config = loadConfig({ ...(opts.configFile ? { file: opts.configFile } : {}), sets: opts.sets ?? [], version: opts.version });
  const plan = planListeners({
    addrs: opts.addrs && opts.addrs.length > 0 ? opts.addrs : [opts.addr ?? 'localhost:8181'],
    diagnosticAddrs: opts.diagnosticAddrs ?? [],
    ...(opts.tlsCertFile ? { tlsCertFile: opts.tlsCertFile } : {}),
    ...(opts.tlsPrivateKeyFile ? { tlsPrivateKeyFile: opts.tlsPrivateKeyFile } : {}),
    ...(opts.tlsCACertFile ? { tlsCACertFile: opts.tlsCACertFile } : {}),
    minTLSVersion: opts.minTLSVersion ?? '1.2',
    requireClientCert: opts.authentication === 'tls',
    authorization: opts.authorization === 'basic',
    unixSocketPerm: opts.unixSocketPerm ?? '755',
    ...(opts.tlsCipherSuites ? { tlsCipherSuites: opts.tlsCipherSuites } : {}),
    tlsCertRefreshMs: opts.tlsCertRefreshMs ?? 0,
    h2c: opts.h2c ?? false,
  });
  const serverOpts: BuildServerOptions = {
    config,
    authentication: opts.authentication ?? 'off',
    authorization: opts.authorization ?? 'off',
    v0Compatible: opts.v0Compatible ?? false,
    workers: opts.workers ?? 0,
    ...(opts.evalTimeoutMs === undefined ? {} : { evalTimeoutMs: opts.evalTimeoutMs }),
    ...(opts.maxCollectionSize === undefined ? {} : { maxCollectionSize: opts.maxCollectionSize }),
    ...(opts.workerHeapMb === undefined ? {} : { workerHeapMb: opts.workerHeapMb }),
    ...(opts.backend === undefined ? {} : { backend: opts.backend }),
    logger: opts.logLevel ? { level: opts.logLevel } : false,
  };
  const app = await buildServer(serverOpts);
  let started: Listeners;
  try {
    await loadPaths(app.regent.engine, app.regent.host, opts.paths ?? [], opts.bundles ?? false);
    if (hasPlugins(config.document)) {
      const plugins = await startPlugins(config.document, app.regent.host, { v0Compatible: opts.v0Compatible ?? false, prometheus: app.regent.prometheus });
      app.regent.attachPlugins(plugins);
    }
    started = await startListeners(app, plan);
  } catch (e) {
    await app.close();
    throw e;
  }
  const { listeners } = started;
  const urls = listeners.map((l) => l.url);
  const graceMs = Math.max(0, opts.shutdownGracePeriod ?? 10) * 1000;
  const waitMs = Math.max(0, opts.shutdownWaitPeriod ?? 0) * 1000;
  let closing: Promise<void> | undefined;
  return {
    app,
    url: urls[0]!,
    urls,
    diagnosticUrls: listeners.filter((l) => l.diagnostic).map((l) => l.url),
    close: () =>
      (closing ??= (async () => {
        if (waitMs > 0) {
          app.log.info(`Waiting ${waitMs / 1000}s before shutting down...`);
          await new Promise((resolve) => setTimeout(resolve, waitMs));
        }
        app.log.info('Shutting down...');
        const err = await started.shutdown(graceMs);
        await app.close();
        if (err) {
          app.log.error({ err }, 'Failed to shutdown server gracefully.');
          throw new Error(err);
        }
        app.log.info('Server shutdown.');
      })()),
  };
}

/**
 * Close the server on SIGINT/SIGTERM; resolves when it has closed, to the
 * error text when requests outlived the grace period (OPA then exits with 1).
 */
export function closeOnSignals(server: RunningServer): Promise<string | undefined> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void server.close().then(
        () => resolve(undefined),
        (e: unknown) => resolve(e instanceof Error ? e.message : String(e)),
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
