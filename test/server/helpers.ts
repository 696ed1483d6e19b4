// Shared helpers for the server black-box tests: start a real listening server on
// 127.0.0.1 (port 0) and talk to it over HTTP with fetch.
import { gzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildServer, type BuildServerOptions } from '../../server/index.js';
import { loadConfig } from '../../server/config/config.js';

export interface TestServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export async function startTestServer(opts: BuildServerOptions & { configText?: string } = {}): Promise<TestServer> {
  const config = loadConfig({ text: opts.configText ?? '', version: '0.1.0-test', id: 'test-instance' });
  const app = await buildServer({ config, ...opts });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${addr.port}`, close: () => app.close() };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json(): unknown;
}

export async function call(server: TestServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = typeof body === 'string' || Buffer.isBuffer(body) ? (body as string) : JSON.stringify(body);
  const res = await fetch(server.url + path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

export async function putPolicy(server: TestServer, id: string, text: string): Promise<Reply> {
  return call(server, 'PUT', `/v1/policies/${id}`, text, { 'content-type': 'text/plain' });
}

export function gzip(text: string): Buffer {
  return gzipSync(Buffer.from(text));
}

/** A raw HTTP request (no automatic decompression), returning the raw body bytes. */
export function rawRequest(server: TestServer, method: string, path: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
