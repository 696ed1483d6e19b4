// Test fixtures for git sources: a local repository built with the git binary,
// and `git http-backend` served behind a node:http CGI wrapper that demands an
// `Authorization: Bearer <token>` header, or whatever an `authorize` check
// accepts (smart HTTP protocol, real git client).
import { execFileSync, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFiles } from './helpers.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' };

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
}

/** Create a repository at `dir` with one commit of `files` on branch main; returns the commit. */
export async function initRepo(dir: string, files: Record<string, string>): Promise<string> {
  await writeFiles(dir, files);
  git(dir, 'init', '-q', '-b', 'main');
  return commitAll(dir, 'initial');
}

export function commitAll(dir: string, message: string): string {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

export interface GitHttpServer {
  url: string;
  requests: { path: string; authorized: boolean }[];
  close(): Promise<void>;
}

/**
 * Serve repositories under `projectRoot` at `http://127.0.0.1:<port>/<repo>`. `auth` is
 * the bearer token to demand, or an `authorize` check of the Authorization header (then
 * a 401 asks for Basic).
 */
export async function serveGit(projectRoot: string, auth: string | ((authorization: string | undefined) => boolean)): Promise<GitHttpServer> {
  const requests: GitHttpServer['requests'] = [];
  const authorize = typeof auth === 'string' ? (h: string | undefined) => h === `Bearer ${auth}` : auth;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const authorized = authorize(req.headers.authorization);
    requests.push({ path: url.pathname, authorized });
    if (!authorized) {
      res.writeHead(401, { 'www-authenticate': typeof auth === 'string' ? 'Bearer realm="git"' : 'Basic realm="git"' }).end('unauthorized\n');
      return;
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_ADDR: '127.0.0.1',
        REMOTE_USER: 'test',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const sep = head.indexOf('\r\n\r\n');
      if (sep < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, sep).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        const [k, v] = [line.slice(0, i).trim(), line.slice(i + 1).trim()];
        if (k.toLowerCase() === 'status') status = parseInt(v, 10);
        else res.setHeader(k, v);
      }
      res.writeHead(status);
      res.write(head.subarray(sep + 4));
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
