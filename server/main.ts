// Starting the engine server for `regent run --server`: load the configuration
// (file, --set), build the Fastify app, load the given paths, start the configured
// plugins (bundles, decision logs, status), listen on the address, and shut down
// cleanly on SIGINT/SIGTERM.
import type { FastifyInstance } from 'fastify';
import { loadConfig } from './config/config.js';
import { buildServer, type BuildServerOptions } from './index.js';
import { loadPaths } from './engine/loader.js';
import { startPlugins } from './plugins/index.js';
import type { AuthenticationMode, AuthorizationMode } from './auth/identity.js';

export interface StartOptions {
  /** Listen address: `:8181`, `localhost:8181`, `http://host:port`. */
  addr?: string;
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
  version: string;
  logLevel?: string;
}

export interface RunningServer {
  app: FastifyInstance;
  /** The base URL the server listens on, e.g. http://127.0.0.1:8181. */
  url: string;
  close(): Promise<void>;
}

/** Split `host:port`, `:port` or `http://host:port` into listen options. */
export function parseAddr(addr: string): { host: string; port: number } {
  const bare = addr.replace(/^https?:\/\//, '');
  const i = bare.lastIndexOf(':');
  if (i < 0) throw new Error(`invalid address "${addr}": want host:port`);
  const host = bare.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(bare.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid address "${addr}": bad port`);
  return { host: host === '' ? '0.0.0.0' : host, port };
}

function hasPlugins(doc: Record<string, unknown>): boolean {
  return ['bundles', 'bundle', 'decision_logs', 'status', 'discovery'].some((k) => doc[k] !== undefined && doc[k] !== null);
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const config = loadConfig({ ...(opts.configFile ? { file: opts.configFile } : {}), sets: opts.sets ?? [], version: opts.version });
  const serverOpts: BuildServerOptions = {
    config,
    authentication: opts.authentication ?? 'off',
    authorization: opts.authorization ?? 'off',
    v0Compatible: opts.v0Compatible ?? false,
    workers: opts.workers ?? 0,
    evalTimeoutMs: opts.evalTimeoutMs ?? 0,
    logger: opts.logLevel ? { level: opts.logLevel } : false,
  };
  const app = await buildServer(serverOpts);
  try {
    await loadPaths(app.regent.engine, app.regent.host, opts.paths ?? [], opts.bundles ?? false);
    if (hasPlugins(config.document)) {
      const plugins = await startPlugins(config.document, app.regent.host, { v0Compatible: opts.v0Compatible ?? false });
      app.regent.attachPlugins(plugins);
    }
    const { host, port } = parseAddr(opts.addr ?? 'localhost:8181');
    await app.listen({ host, port });
  } catch (e) {
    await app.close();
    throw e;
  }
  const address = app.server.address();
  const url = typeof address === 'object' && address ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : String(address);
  return { app, url, close: () => app.close() };
}

/** Close the server on SIGINT/SIGTERM; resolves when it has closed. */
export function closeOnSignals(server: RunningServer): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void server.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
