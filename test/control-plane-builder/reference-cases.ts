// The shared set-up of the reference control plane's e2e replays
// (reference*.test.ts): a work folder with one fresh sub-folder per case, a local
// HTTP service standing in for the scripts' $HTTP_ENDPOINT, and `build` run the way
// the scripts run `opactl build`. Registers its own beforeAll/afterAll hooks.
import { createServer, type RequestListener, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { regent, workDir, writeAll, type Run } from './blackbox.js';

export interface ReferenceCases {
  /** A fresh work folder holding the case's files. */
  caseDir(files: Record<string, string>): Promise<string>;
  /** `regent control-plane build --config config.d/bundle.yml --data-dir tmp …` in `dir`. */
  build(dir: string, ...extra: string[]): Promise<Run>;
  /** host:port of the stand-in HTTP service. */
  endpoint(): string;
  /** The work folder holding every case folder. */
  root(): string;
}

/** The e2e scripts' HTTP service: /users, and /headers echoing the request headers as Go's http.Header JSON. */
export const e2eService: RequestListener = (req, res) => {
  if (req.url === '/users') return void res.end('{"users":[{"id":"alice","roles":["admin","editor"]},{"id":"bob","roles":["viewer"]}]}\n');
  if (req.url === '/headers') {
    const h: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      const name = k.split('-').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('-');
      h[name] = Array.isArray(v) ? v : [String(v)];
    }
    return void res.end(JSON.stringify(h));
  }
  res.writeHead(404).end();
};

export function referenceCases(prefix: string, service: RequestListener = e2eService, onClose?: () => Promise<void>): ReferenceCases {
  let root = '';
  let cleanup: () => Promise<void> = async () => {};
  let http: Server | undefined;
  let endpoint = '';
  let n = 0;
  beforeAll(async () => {
    ({ dir: root, cleanup } = await workDir(prefix));
    const server = createServer(service);
    http = server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await onClose?.();
    if (http) await new Promise((r) => http!.close(r));
    await cleanup();
  });
  return {
    async caseDir(files) {
      const dir = join(root, `case${n++}`);
      await writeAll(dir, files);
      return dir;
    },
    build: (dir, ...extra) => regent(['control-plane', 'build', '--config', 'config.d/bundle.yml', '--data-dir', 'tmp', ...extra], dir, { HTTP_ENDPOINT: endpoint }),
    endpoint: () => endpoint,
    root: () => root,
  };
}
