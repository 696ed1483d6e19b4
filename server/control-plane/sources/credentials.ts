// Secrets as HTTP credentials, shared by HTTP datasources and git over https:
//   basic_auth                {username, password, headers?: ["Name: value"]}
//   token_auth                {token}                      → Authorization: Bearer
//   api_key                   {key, value, in: header|query}
//   oidc_client_credentials   {token_endpoint | issuer, client_id, client_secret, scopes?}
//   tls_cert                  {root_ca?, tls_cert, tls_key} → an undici Agent
// Other types are unsupported for HTTP (`unsupported secret type for http sync`);
// github_app_auth is for git only (github-app.ts, wired in git.ts).
import { Agent } from 'undici';
import type { SecretValue } from '../contract.js';
import { SyncError } from '../builder/errors.js';

export type SecretLookup = (name: string) => Promise<SecretValue | undefined>;

export interface HttpAuth {
  headers: Record<string, string>;
  query: Record<string, string>;
  dispatcher?: Agent;
}

/** Resolve a named secret; a missing or empty secret is a user error. */
export async function requireSecret(lookup: SecretLookup, name: string): Promise<SecretValue> {
  const v = await lookup(name);
  if (!v || !v.type) throw new SyncError(`secret "${name}" is not configured`, true);
  return v;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export async function httpAuth(secret: SecretValue | undefined, timeoutMs = 30_000): Promise<HttpAuth> {
  const auth: HttpAuth = { headers: {}, query: {} };
  if (!secret) return auth;
  switch (secret.type) {
    case 'basic_auth': {
      auth.headers.authorization = 'Basic ' + Buffer.from(`${str(secret.username)}:${str(secret.password)}`).toString('base64');
      for (const h of Array.isArray(secret.headers) ? (secret.headers as unknown[]) : []) {
        const i = str(h).indexOf(':');
        if (i > 0) auth.headers[str(h).slice(0, i).trim().toLowerCase()] = str(h).slice(i + 1).trim();
      }
      return auth;
    }
    case 'token_auth':
      auth.headers.authorization = `Bearer ${str(secret.token)}`;
      return auth;
    case 'api_key':
      if (secret.in === 'query') auth.query[str(secret.key)] = str(secret.value);
      else auth.headers[str(secret.key).toLowerCase()] = str(secret.value);
      return auth;
    case 'oidc_client_credentials':
      auth.headers.authorization = `Bearer ${await clientCredentialsToken(secret, timeoutMs)}`;
      return auth;
    case 'tls_cert':
      auth.dispatcher = new Agent({
        connect: { cert: str(secret.tls_cert), key: str(secret.tls_key), ca: str(secret.root_ca) || undefined },
      });
      return auth;
    default:
      throw new SyncError(`unsupported secret type for http sync: "${secret.type}"`, true);
  }
}

/** OAuth2 client-credentials grant; the endpoint comes from the secret or OIDC discovery. */
async function clientCredentialsToken(secret: SecretValue, timeoutMs: number): Promise<string> {
  let endpoint = str(secret.token_endpoint);
  if (!endpoint && secret.issuer) {
    const res = await fetch(`${str(secret.issuer).replace(/\/$/, '')}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new SyncError(`oidc discovery: unsuccessful status code ${res.status}`, res.status < 500);
    endpoint = str(((await res.json()) as Record<string, unknown>).token_endpoint);
  }
  if (!endpoint) throw new SyncError('oidc_client_credentials: token_endpoint or issuer is required', true);
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const scopes = Array.isArray(secret.scopes) ? (secret.scopes as unknown[]).map(str).join(' ') : str(secret.scopes);
  if (scopes) form.set('scope', scopes);
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: 'Basic ' + Buffer.from(`${str(secret.client_id)}:${str(secret.client_secret)}`).toString('base64'),
    },
    body: form.toString(),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new SyncError(`oidc token request: unsuccessful status code ${res.status}`, res.status < 500);
  const token = str(((await res.json()) as Record<string, unknown>).access_token);
  if (!token) throw new SyncError('oidc token response has no access_token', true);
  return token;
}
