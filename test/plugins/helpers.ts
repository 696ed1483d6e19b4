// Test doubles for the plugins: a fake PluginHost that records what the plugins
// report, a real HTTP server on 127.0.0.1 (port 0), and a polling waitFor.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bundle } from '../../runtime/bundles/index.js';
import type { BundleStatus, PluginHost, PluginState } from '../../server/plugins/contract.js';

export class FakeHost implements PluginHost {
  readonly active = new Map<string, Bundle>();
  readonly statuses: BundleStatus[] = [];
  readonly states = new Map<string, PluginState>();
  activations = 0;
  evaluate?: PluginHost['evaluate'];

  async activateBundle(name: string, bundle: Bundle): Promise<void> {
    const broken = bundle.modules.find((m) => m.text.includes('BROKEN'));
    if (broken) {
      throw Object.assign(new Error('1 error occurred'), {
        name: 'RegoErrors',
        errors: [{ code: 'rego_parse_error', message: 'unexpected identifier', location: { file: broken.path, row: 2, col: 1 } }],
      });
    }
    this.activations++;
    this.active.set(name, bundle);
  }
  setPluginState(plugin: string, state: PluginState): void {
    this.states.set(plugin, state);
  }
  setBundleStatus(status: BundleStatus): void {
    this.statuses.push(status);
  }
  labels(): Record<string, string> {
    return { id: 'test-id', version: '0.0.0' };
  }
  lastStatus(): BundleStatus | undefined {
    return this.statuses[this.statuses.length - 1];
  }
}

export interface TestServer {
  url: string;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[];
  close(): Promise<void>;
}

/** Start an HTTP server; `handler` answers each request (after its body is read). */
export async function startServer(handler: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void | Promise<void>): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      Promise.resolve(handler(req, body, res)).catch((e: unknown) => {
        res.statusCode = 500;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Poll `cond` every 10ms until true; fails after `ms`. */
export async function waitFor(cond: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
