// OPA's `services` config and the HTTP client every plugin talks through
// (v1/plugins/rest/rest.go). A service is `{url, headers,
// response_header_timeout_seconds (10), allow_insecure_tls, tls.ca_cert,
// credentials}`; credentials are `bearer` (`token` or `token_path`, `scheme`
// default Bearer), `oauth2` (client_credentials grant only: basic-auth client,
// cached token until shortly before expiry) or `client_tls` (cert/key files).
// Requests go through one undici Agent per service, with header and body
// timeouts; the caller may abort with a signal.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

export class ServiceConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceConfigError';
  }
}

export interface BearerCredentials {
  token?: string;
  token_path?: string;
  scheme?: string;
}

export interface OAuth2Credentials {
  token_url: string;
  client_id?: string;
  client_secret?: string;
  scopes?: string[];
  grant_type?: string;
  additional_headers?: Record<string, string>;
}

export interface ServiceConfig {
  name: string;
  url: string;
  headers?: Record<string, string>;
  response_header_timeout_seconds?: number;
  allow_insecure_tls?: boolean;
  tls?: { ca_cert?: string };
  credentials?: {
    bearer?: BearerCredentials;
    oauth2?: OAuth2Credentials;
    client_tls?: { cert: string; private_key: string; private_key_passphrase?: string };
  };
}

/** Normalize `services` (object keyed by name, or array of named entries) and validate. */
export function parseServices(raw: unknown): Map<string, ServiceConfig> {
  const out = new Map<string, ServiceConfig>();
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object') throw new ServiceConfigError('services: must be an object or an array');
  const entries: [string, unknown][] = Array.isArray(raw)
    ? raw.map((s, i) => [String((s as { name?: unknown } | null)?.name ?? `service-${i}`), s])
    : Object.entries(raw as Record<string, unknown>);
  for (const [name, value] of entries) {
    if (value === null || typeof value !== 'object') throw new ServiceConfigError(`service ${name}: must be an object`);
    const s = { ...(value as Record<string, unknown>), name } as ServiceConfig;
    if (typeof s.url !== 'string' || s.url === '') throw new ServiceConfigError(`service ${name}: missing url`);
    try {
      new URL(s.url);
    } catch {
      throw new ServiceConfigError(`service ${name}: invalid url ${JSON.stringify(s.url)}`);
    }
    const creds = s.credentials ?? {};
    const kinds = Object.keys(creds).filter((k) => (creds as Record<string, unknown>)[k] != null);
    if (kinds.length > 1) throw new ServiceConfigError(`service ${name}: a maximum of one credential method is supported (found ${kinds.sort().join(', ')})`);
    const o = creds.oauth2;
    if (o) {
      const grant = o.grant_type ?? 'client_credentials';
      if (grant !== 'client_credentials') throw new ServiceConfigError(`service ${name}: oauth2 grant type ${grant} is not supported`);
      if (typeof o.token_url !== 'string' || !o.token_url.startsWith('https://')) throw new ServiceConfigError(`service ${name}: token_url required to use https scheme`);
      if (!o.client_id || !o.client_secret) throw new ServiceConfigError(`service ${name}: client_id and client_secret required`);
    }
    const b = creds.bearer;
    if (b && b.token === undefined && b.token_path === undefined) throw new ServiceConfigError(`service ${name}: bearer credentials need token or token_path`);
    out.set(name, s);
  }
  return out;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Response header timeout override in ms (0 disables). */
  headersTimeoutMs?: number;
  signal?: AbortSignal;
  /** Maximum body bytes accepted; larger bodies fail the request. */
  maxBodyBytes?: number;
}

export interface ServiceResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The HTTP error of a non-2xx reply, shown as OPA does: "server replied with Not Found". */
export class HTTPStatusError extends Error {
  constructor(readonly statusCode: number) {
    super(`server replied with ${STATUS_TEXT[statusCode] ?? String(statusCode)}`);
    this.name = 'HTTPStatusError';
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout',
  409: 'Conflict', 410: 'Gone', 413: 'Request Entity Too Large', 429: 'Too Many Requests', 500: 'Internal Server Error',
  501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/** A client bound to one service. */
export class ServiceClient {
  private readonly agent: Agent;
  private oauthToken: { token: string; expiresAt: number } | undefined;

  constructor(
    readonly config: ServiceConfig,
    private readonly userAgent = 'Regent',
  ) {
    const tls = config.credentials?.client_tls;
    const connect: Record<string, unknown> = { rejectUnauthorized: !config.allow_insecure_tls };
    if (config.tls?.ca_cert) connect.ca = readFileSync(config.tls.ca_cert);
    if (tls) {
      connect.cert = readFileSync(tls.cert);
      connect.key = readFileSync(tls.private_key);
      if (tls.private_key_passphrase) connect.passphrase = tls.private_key_passphrase;
    }
    const headerMs = (config.response_header_timeout_seconds ?? 10) * 1000;
    this.agent = new Agent({ connect, headersTimeout: headerMs, bodyTimeout: 5 * 60_000, keepAliveTimeout: 4_000 });
  }

  get name(): string {
    return this.config.name;
  }

  /** `<url>/<path>` with exactly one slash between. */
  url(path: string): string {
    return `${this.config.url.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  }

  private async authorization(signal?: AbortSignal): Promise<string | undefined> {
    const c = this.config.credentials;
    if (c?.bearer) {
      const token = c.bearer.token_path !== undefined ? readFileSync(c.bearer.token_path, 'utf8').trim() : (c.bearer.token ?? '');
      return `${c.bearer.scheme ?? 'Bearer'} ${token}`;
    }
    if (c?.oauth2) return `Bearer ${await this.oauth2Token(c.oauth2, signal)}`;
    return undefined;
  }

  private async oauth2Token(o: OAuth2Credentials, signal?: AbortSignal): Promise<string> {
    if (this.oauthToken && Date.now() + 10_000 < this.oauthToken.expiresAt) return this.oauthToken.token;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (o.scopes && o.scopes.length > 0) form.set('scope', o.scopes.join(' '));
    const basic = Buffer.from(`${o.client_id}:${o.client_secret}`).toString('base64');
    const res = await request(o.token_url, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}`, ...(o.additional_headers ?? {}) },
      body: form.toString(),
      signal,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`error in response from OAuth2 token endpoint: ${text}`);
    let parsed: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch (e) {
      throw new Error(`invalid response from OAuth2 token endpoint: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (String(parsed.token_type ?? '').toLowerCase() !== 'bearer') throw new Error('unknown token type returned from token endpoint');
    if (typeof parsed.access_token !== 'string') throw new Error('no access_token returned from token endpoint');
    const ttl = typeof parsed.expires_in === 'number' ? parsed.expires_in * 1000 : 3600_000;
    this.oauthToken = { token: parsed.access_token, expiresAt: Date.now() + ttl };
    return parsed.access_token;
  }

  /** Send a request; resolves with any status (the caller interprets it). */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<ServiceResponse> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent, ...lower(this.config.headers ?? {}), ...lower(opts.headers ?? {}) };
    const auth = await this.authorization(opts.signal);
    if (auth !== undefined) headers.authorization = auth;
    const res = await request(this.url(path), {
      method: method as 'GET',
      dispatcher: this.agent,
      headers,
      body: opts.body,
      signal: opts.signal,
      ...(opts.headersTimeoutMs !== undefined ? { headersTimeout: opts.headersTimeoutMs } : {}),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (opts.maxBodyBytes !== undefined && size > opts.maxBodyBytes) {
        res.body.destroy();
        throw new Error(`response body exceeds ${opts.maxBodyBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const outHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) outHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: res.statusCode, headers: outHeaders, body: Buffer.concat(chunks) };
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}

function lower(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = String(v);
  return out;
}
