// The dashboard's static files under `{api_prefix}/ui` (issue 15): index.html,
// app.js and app.css, bundled by server/control-plane/ui/build.mjs into
// server/control-plane/ui/dist. No authentication here: the page holds no data,
// and every API call it makes carries the signed-in key and its role checks.
// Caching: `no-cache` with a content ETag, so a browser revalidates (304) and
// never runs an old app.js after an upgrade. A strict Content-Security-Policy
// allows only this origin's script and styles.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../errors.js';
import { sendError } from './common.js';

const CONTENT_TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The folder with the built dashboard: beside the sources
 * (server/control-plane/routes → ../ui/dist), also when this file runs
 * compiled from dist/server/control-plane/routes.
 */
export function dashboardDir(): string {
  const candidates = [join(here, '..', 'ui', 'dist'), join(here, '..', '..', '..', '..', 'server', 'control-plane', 'ui', 'dist')];
  return candidates.find((d) => existsSync(join(d, 'index.html'))) ?? candidates[0]!;
}

interface Cached {
  mtimeMs: number;
  body: Buffer;
  etag: string;
}

export function registerUiRoutes(app: FastifyInstance, dir: string = dashboardDir()): void {
  const cache = new Map<string, Cached>();

  /** The file's bytes and ETag, re-read when it changed on disk (a rebuild while running). */
  const load = (file: string): Cached | undefined => {
    const path = join(dir, file);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      return undefined;
    }
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit;
    const body = readFileSync(path);
    const entry = { mtimeMs, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    cache.set(file, entry);
    return entry;
  };

  const serve = (file: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    const entry = load(file);
    if (!entry) {
      return sendError(req, reply, new NotFound('the dashboard is not built: run `node server/control-plane/ui/build.mjs`'));
    }
    reply.headers({ ...SECURITY_HEADERS, 'cache-control': 'no-cache', etag: entry.etag });
    if (req.headers['if-none-match'] === entry.etag) return reply.code(304).send();
    return reply.code(200).type(CONTENT_TYPES[file]!).send(entry.body);
  };

  // /ui → /ui/, so the page's relative URLs (app.js, app.css) resolve under /ui/.
  app.get('/ui', async (req, reply) => {
    const [path, query] = req.url.split('?');
    return reply.redirect(`${path}/${query === undefined ? '' : `?${query}`}`, 301);
  });
  app.get('/ui/', serve('index.html'));
  for (const file of Object.keys(CONTENT_TYPES)) app.get(`/ui/${file}`, serve(file));
}
