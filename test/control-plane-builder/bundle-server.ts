// A static bundle server for end-to-end tests: serves files of a directory with
// a content-hash ETag, 304 on If-None-Match, and OPA long polling (`Prefer:
// wait=N` holds a 304 until the file's content changes or N seconds pass;
// responses then carry the `application/vnd.openpolicyagent.bundles` type).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

export interface BundleFileServer {
  url: string;
  close(): Promise<void>;
}

async function current(file: string): Promise<{ body: Buffer; etag: string } | undefined> {
  const body = await readFile(file).catch(() => undefined);
  return body && { body, etag: `"${createHash('sha256').update(body).digest('hex')}"` };
}

export async function serveBundles(root: string, pollMs = 20): Promise<BundleFileServer> {
  const open = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const rel = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
      const file = join(root, rel);
      const wait = /wait=(\d+)/.exec(String(req.headers.prefer ?? ''));
      const inm = req.headers['if-none-match'];
      let cur = await current(file);
      if (wait && cur && inm === cur.etag) {
        const deadline = Date.now() + Number(wait[1]) * 1000;
        while (Date.now() < deadline && !res.destroyed) {
          await new Promise<void>((r) => {
            const t = setTimeout(() => (open.delete(t), r()), pollMs);
            open.add(t);
          });
          cur = await current(file);
          if (!cur || cur.etag !== inm) break;
        }
      }
      const ctype = wait ? 'application/vnd.openpolicyagent.bundles' : 'application/gzip';
      if (!cur) return void res.writeHead(404).end();
      if (inm === cur.etag) return void res.writeHead(304, { etag: cur.etag, 'content-type': ctype }).end();
      res.writeHead(200, { etag: cur.etag, 'content-type': ctype }).end(cur.body);
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const t of open) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
