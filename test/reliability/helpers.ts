// Helpers for the reliability suite (issue 10): start a real `regent run --server`
// child process, send hostile requests with raw HTTP (no client-side limits or
// decompression), and probe it with a normal decision every 0.5 s while a hostile
// request runs, to show that other decisions keep answering.
//
//   await withServer({ files: { 'x.rego': '...' }, args: ['--authorization=basic'] }, async (srv) => {
//     const { result, probe } = await probeDuring(srv, () => send(srv, { method: 'POST', path: '/v1/data/x', body }));
//     expect(errorBody(result).code).toBe('invalid_parameter'); // a {code, message} body
//     expect(srv.alive()).toBe(true);
//     reportProbe('gzip bomb', probe);            // prints worst latency
//     expect(probe.worstMs).toBeLessThan(2000);
//   });
//
// Every server gets the probe policy (`probe.rego`, `data.probe.allow` is true for
// input.user == "alice"); probes POST /v1/data/probe/allow on fresh connections.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'regent.js');

export const PROBE_POLICY = 'package probe\n\nallow if input.user == "alice"\n';
export const PROBE_PATH = '/v1/data/probe/allow';
export const PROBE_BODY = '{"input":{"user":"alice"}}';

export interface ServerOptions {
  /** Files written to a temporary directory (relative names); `.rego`/`.json`/`.yaml` ones are passed as paths. */
  files?: Record<string, string | Buffer>;
  /** Extra `regent run` arguments (flags), e.g. ['--authorization=basic', '--workers', '1']. */
  args?: string[];
  /** OPA config file text, passed with `-c`. */
  config?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Milliseconds to wait for "listening" (default 30 s). */
  startTimeoutMs?: number;
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  pid: number;
  /** The temporary directory holding `files`. */
  dir: string;
  /** True while the process has not exited. */
  alive(): boolean;
  /** Everything the process wrote to stderr/stdout so far. */
  output(): string;
  /** Resident set size in MB (Linux /proc), or NaN when unknown/exited. */
  rssMB(): number;
  close(): Promise<void>;
}

/** Start `node bin/regent.js run --server --addr 127.0.0.1:0` with the probe policy and `opts`. */
export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), 'regent-rel-'));
  const paths: string[] = [];
  const files: Record<string, string | Buffer> = { 'probe.rego': PROBE_POLICY, ...opts.files };
  for (const [name, content] of Object.entries(files)) {
    const p = join(dir, name);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    if (/\.(rego|json|ya?ml)$/.test(name)) paths.push(p);
  }
  const args = [BIN, 'run', '--server', '--addr', '127.0.0.1:0', ...(opts.args ?? [])];
  if (opts.config !== undefined) {
    writeFileSync(join(dir, 'config.yaml'), opts.config);
    args.push('-c', join(dir, 'config.yaml'));
  }
  args.push(...paths);
  const child: ChildProcess = spawn(process.execPath, args, { cwd: dir, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), opts.startTimeoutMs ?? 30_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    dir,
    alive,
    output: () => out,
    rssMB: () => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m ? Number(m[1]) / 1024 : NaN;
      } catch {
        return NaN;
      }
    },
    async close() {
      if (alive()) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Start a server, run `fn`, and always stop the server. */
export async function withServer<T>(opts: ServerOptions, fn: (srv: RunningServer) => Promise<T>): Promise<T> {
  const srv = await startServer(opts);
  try {
    return await fn(srv);
  } finally {
    await srv.close();
  }
}

export interface SendOptions {
  method?: string;
  path: string;
  headers?: Record<string, string | number>;
  /** The body, or chunks written one after another (a streaming upload). */
  body?: string | Buffer | (string | Buffer)[];
  /** Give up (reject) after this many ms (default 60 s). */
  timeoutMs?: number;
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json(): unknown;
  /** Milliseconds from sending to the end of the reply. */
  ms: number;
}

/** Decode a chunked HTTP/1.1 body. */
function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  while (i < body.length) {
    const eol = body.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = parseInt(body.subarray(i, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(body.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Split a raw reply; `complete` once the whole body (by Content-Length or chunked framing) is there. */
function parseReply(raw: Buffer): { status: number; headers: Record<string, string>; body: Buffer; complete: boolean } | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const rest = raw.subarray(end + 4);
  const status = Number(lines[0]!.split(' ')[1]);
  if (headers['transfer-encoding'] === 'chunked') return { status, headers, body: dechunk(rest), complete: rest.includes('0\r\n\r\n') };
  const length = Number(headers['content-length'] ?? 0);
  return { status, headers, body: rest.subarray(0, length), complete: rest.length >= length };
}

/**
 * One HTTP/1.1 request on a fresh TCP connection; the body is not decompressed.
 * Written on a raw socket, as a keep-alive request, and the socket is closed by
 * this side once the reply is complete: a server may answer before the whole body
 * is written (write errors are ignored), and with keep-alive it keeps discarding
 * the rest of the body instead of resetting the connection (which can destroy the
 * reply in flight).
 */
export function send(srv: { url: string }, o: SendOptions): Promise<RawReply> {
  const started = performance.now();
  const { hostname, port } = new URL(srv.url);
  const chunks = o.body === undefined ? [] : (Array.isArray(o.body) ? o.body : [o.body]).map((c) => (typeof c === 'string' ? Buffer.from(c) : c));
  const headers: Record<string, string | number> = { host: `${hostname}:${port}`, ...o.headers };
  const named = new Set(Object.keys(headers).map((k) => k.toLowerCase()));
  if (!named.has('content-length') && !named.has('transfer-encoding') && (chunks.length > 0 || (o.method ?? 'POST') !== 'GET')) {
    headers['content-length'] = chunks.reduce((n, c) => n + c.length, 0);
  }
  const head = `${o.method ?? 'POST'} ${o.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let done = false;
    const finish = (final: boolean): void => {
      if (done) return;
      const reply = parseReply(Buffer.concat(received));
      if (!reply || (!reply.complete && !final)) {
        if (final) {
          done = true;
          clearTimeout(timer);
          reject(new Error(`connection closed without a reply to ${o.method ?? 'POST'} ${o.path}`));
        }
        return;
      }
      done = true;
      clearTimeout(timer);
      sock.destroy();
      const text = reply.body.toString('utf8');
      resolve({ status: reply.status, headers: reply.headers, body: reply.body, text, json: () => JSON.parse(text), ms: performance.now() - started });
    };
    const timer = setTimeout(() => {
      sock.destroy();
      if (!done) reject(new Error(`no reply to ${o.method ?? 'POST'} ${o.path} within ${o.timeoutMs ?? 60_000} ms`));
      done = true;
    }, o.timeoutMs ?? 60_000);
    sock.on('connect', () => {
      sock.write(head);
      for (const c of chunks) if (!done) sock.write(c);
    });
    sock.on('data', (c: Buffer) => {
      received.push(c);
      finish(false);
    });
    sock.on('error', () => undefined); // EPIPE/ECONNRESET once the server has answered and closed
    sock.on('close', () => finish(true));
  });
}

/**
 * Write raw bytes on a TCP connection and collect what the server sends until one
 * complete reply is there (by Content-Length or chunked framing), the server
 * closes the connection, or `timeoutMs` (default 10 s). For framing errors that
 * an HTTP client would refuse to send. (A reply to HEAD is never "complete": send
 * `Connection: close` with it.)
 */
export function sendRaw(srv: { port: number }, bytes: string | Buffer, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(srv.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    }, timeoutMs);
    sock.on('connect', () => sock.write(bytes));
    sock.on('data', (c: Buffer) => {
      chunks.push(c);
      if (parseReply(Buffer.concat(chunks))?.complete) sock.destroy();
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      if (chunks.length > 0) resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(e);
    });
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** Split a raw HTTP/1.x response into status, headers and body. */
export function parseRawResponse(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: end < 0 ? '' : raw.slice(end + 4) };
}

/** Assert-free check: the reply body is OPA's error envelope `{code, message}` (returns it, or throws). */
export function errorBody(reply: { status: number; text?: string; body?: string | Buffer }): { code: string; message: string; errors?: unknown[] } {
  const text = reply.text ?? (Buffer.isBuffer(reply.body) ? reply.body.toString('utf8') : reply.body ?? '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`status ${reply.status}: body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  const o = parsed as { code?: unknown; message?: unknown };
  if (typeof o?.code !== 'string' || typeof o.message !== 'string') throw new Error(`status ${reply.status}: not a {code, message} body: ${text.slice(0, 200)}`);
  return parsed as { code: string; message: string; errors?: unknown[] };
}

export interface ProbeResult {
  /** Worst probe latency in ms (a probe still unanswered counts with its waiting time). */
  worstMs: number;
  /** Probes answered with 200 {"result": true}. */
  answered: number;
  /** Probes sent. */
  sent: number;
  /** Probes that failed (error, wrong status or body, or no answer within the wait). */
  failed: number;
  latencies: number[];
  /** Highest RSS of the server seen while probing (MB; NaN when unknown). */
  peakRssMB: number;
  /** Duration of the hostile action in ms. */
  hostileMs: number;
}

export interface ProbeOptions {
  /** Probe period in ms (default 500). */
  intervalMs?: number;
  /** Keep probing at least this long, even when the hostile action ends sooner (default 1000 ms). */
  minDurationMs?: number;
  /** How long to wait for outstanding probes after the hostile action (default 10 s). */
  drainMs?: number;
}

async function probeOnce(srv: RunningServer): Promise<{ ok: boolean; ms: number }> {
  const started = performance.now();
  try {
    const r = await send(srv, { method: 'POST', path: PROBE_PATH, body: PROBE_BODY, headers: { 'content-type': 'application/json' }, timeoutMs: 30_000 });
    const ok = r.status === 200 && (r.json() as { result?: unknown }).result === true;
    return { ok, ms: r.ms };
  } catch {
    return { ok: false, ms: performance.now() - started };
  }
}

/**
 * Run `hostile` while a normal decision is sent every `intervalMs`. Returns the
 * hostile action's result (or rethrows its error) and the probe statistics.
 */
export async function probeDuring<T>(srv: RunningServer, hostile: () => Promise<T>, opts: ProbeOptions = {}): Promise<{ result: T; probe: ProbeResult }> {
  const interval = opts.intervalMs ?? 500;
  const pending = new Map<number, number>(); // probe id → start time
  const done: { ok: boolean; ms: number }[] = [];
  let sent = 0;
  let peak = srv.rssMB();
  const fire = (): void => {
    const id = sent++;
    pending.set(id, performance.now());
    void probeOnce(srv).then((r) => {
      pending.delete(id);
      done.push(r);
    });
    peak = Math.max(peak, srv.rssMB());
  };
  const started = performance.now();
  fire();
  const timer = setInterval(fire, interval);
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await hostile() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const hostileMs = performance.now() - started;
  const minEnd = started + (opts.minDurationMs ?? 1000);
  while (performance.now() < minEnd) await new Promise((r) => setTimeout(r, 50));
  clearInterval(timer);
  const drainEnd = performance.now() + (opts.drainMs ?? 10_000);
  while (pending.size > 0 && performance.now() < drainEnd) await new Promise((r) => setTimeout(r, 20));
  const now = performance.now();
  const stuck = [...pending.values()].map((t) => now - t);
  const latencies = [...done.map((d) => d.ms), ...stuck];
  const probe: ProbeResult = {
    worstMs: Math.round(Math.max(0, ...latencies)),
    answered: done.filter((d) => d.ok).length,
    sent,
    failed: done.filter((d) => !d.ok).length + stuck.length,
    latencies,
    peakRssMB: peak,
    hostileMs: Math.round(hostileMs),
  };
  if (!outcome.ok) throw outcome.error;
  return { result: outcome.value, probe };
}

/** Print one line about a probe run (the suite's measured worst latencies). */
export function reportProbe(label: string, p: ProbeResult): void {
  const rss = Number.isNaN(p.peakRssMB) ? '' : `, peak RSS ${Math.round(p.peakRssMB)} MB`;
  console.log(`[reliability] ${label}: worst probe ${p.worstMs} ms, ${p.answered}/${p.sent} answered, hostile request ${p.hostileMs} ms${rss}`);
}
