// GitHub App installation tokens for `github_app_auth` git credentials, after the
// reference (OCP `internal/gitsync`, which uses bradleyfalzon/ghinstallation):
//   secret {type: github_app_auth, integration_id, installation_id, private_key}
//   where private_key is the path of the App's PEM key file (PKCS#1 as GitHub
//   issues it, or PKCS#8), read again at every sync.
// 1. An App JWT, RS256, signed with `jose`: iss = integration id, iat 30 s in the
//    past (clock skew), exp = iat + 2 min (GitHub's limit is 10 min).
// 2. POST {api}/app/installations/{installation_id}/access_tokens with
//    `Authorization: Bearer <jwt>` → {token, expires_at}.
// 3. The token is cached in memory per (API URL, ids, key contents) until one
//    minute before expires_at (ghinstallation's refresh margin); concurrent syncs
//    share one request. The reference keeps one transport per synchronizer; the
//    cache here is per process, keyed by everything the token depends on.
// git.ts sends the token as basic auth, user `x-access-token`.
// The API base URL cannot be configured in the reference (always
// https://api.github.com). Here it can be passed in (`apiUrl`) or set with the
// REGENT_GITHUB_API_URL environment variable, for tests and GitHub Enterprise
// (`https://ghe.example.com/api/v3`); it is not a secret key.
// Errors are SyncErrors: configuration faults (bad ids, unreadable or invalid key
// file, a 4xx from GitHub, with GitHub's message) are user errors; network
// failures and 5xx are not.
import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SignJWT } from 'jose';
import { request } from 'undici';
import type { SecretValue } from '../contract.js';
import { SyncError, messageOf } from '../builder/errors.js';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
/** Username that goes with an installation token in git basic auth. */
export const GITHUB_APP_GIT_USER = 'x-access-token';

const REFRESH_MARGIN_MS = 60_000;
const JWT_BACKDATE_S = 30;
const JWT_LIFETIME_S = 120;
const MAX_CACHED = 256;

export interface GitHubAppOptions {
  /** API base URL; default $REGENT_GITHUB_API_URL, else https://api.github.com. */
  apiUrl?: string;
  timeoutMs?: number;
}

interface CachedToken {
  token: string;
  /** Epoch ms after which the token is requested again. */
  refreshAt: number;
}

const cache = new Map<string, CachedToken>();
const inflight = new Map<string, Promise<CachedToken>>();

/** Forget every cached installation token (tests). */
export function clearGitHubAppTokens(): void {
  cache.clear();
}

const fail = (message: string, userError = true): SyncError => new SyncError(`github_app_auth: ${message}`, userError);

/** A positive integer id from a number or a numeric string (env-expanded values are strings). */
function idOf(secret: SecretValue, key: string): string {
  const v = secret[key];
  const s = typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : '') : typeof v === 'string' ? v.trim() : '';
  if (!/^[1-9][0-9]{0,18}$/.test(s)) throw fail(`${key} must be a positive integer`);
  return s;
}

/** The installation token for a `github_app_auth` secret, from the cache or from GitHub. */
export async function githubAppToken(secret: SecretValue, opts: GitHubAppOptions = {}): Promise<string> {
  const appId = idOf(secret, 'integration_id');
  const installationId = idOf(secret, 'installation_id');
  const keyFile = typeof secret.private_key === 'string' ? secret.private_key : '';
  if (!keyFile) throw fail('private_key (the path of the PEM key file) is required');
  let pem: Buffer;
  try {
    pem = await readFile(keyFile);
  } catch (e) {
    throw fail(`could not read private key: ${messageOf(e)}`);
  }
  const apiUrl = (opts.apiUrl || process.env.REGENT_GITHUB_API_URL || DEFAULT_GITHUB_API_URL).replace(/\/+$/, '');
  const id = createHash('sha256').update(`${apiUrl}\0${appId}\0${installationId}\0`).update(pem).digest('hex');

  const hit = cache.get(id);
  if (hit && Date.now() < hit.refreshAt) return hit.token;
  let pending = inflight.get(id);
  if (!pending) {
    pending = fetchToken(apiUrl, appId, installationId, pem, opts.timeoutMs ?? 30_000);
    inflight.set(id, pending);
    pending
      .then((t) => {
        if (Date.now() >= t.refreshAt) return;
        for (const [k, v] of cache) if (Date.now() >= v.refreshAt) cache.delete(k);
        if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
        cache.set(id, t);
      })
      .catch(() => cache.delete(id))
      .finally(() => inflight.delete(id));
  }
  return (await pending).token;
}

function parseKey(pem: Buffer): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (e) {
    throw fail(`could not parse private key: ${messageOf(e)}`);
  }
  if (key.asymmetricKeyType !== 'rsa') throw fail(`could not parse private key: expected an RSA key, got ${key.asymmetricKeyType}`);
  return key;
}

/** The App JWT (what ghinstallation's AppsTransport signs). */
async function appJwt(appId: string, key: KeyObject): Promise<string> {
  const iat = Math.floor(Date.now() / 1000) - JWT_BACKDATE_S;
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(appId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + JWT_LIFETIME_S)
    .sign(key);
}

async function fetchToken(apiUrl: string, appId: string, installationId: string, pem: Buffer, timeoutMs: number): Promise<CachedToken> {
  const jwt = await appJwt(appId, parseKey(pem));
  const url = `${apiUrl}/app/installations/${installationId}/access_tokens`;
  const what = `could not refresh installation id ${installationId}'s token`;
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${jwt}`,
        accept: 'application/vnd.github+json',
        'user-agent': 'regent-control-plane',
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (e) {
    throw fail(`${what}: could not get access_tokens from GitHub API: ${messageOf(e)}`, false);
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: the status alone tells
  }
  if (status < 200 || status > 299) {
    const message = typeof body.message === 'string' && body.message ? `: ${body.message}` : '';
    throw fail(`${what}: received non 2xx response status ${status} when fetching ${url}${message}`, status >= 400 && status < 500);
  }
  if (typeof body.token !== 'string' || !body.token) throw fail(`${what}: the response from ${url} has no token`, false);
  const expires = typeof body.expires_at === 'string' ? Date.parse(body.expires_at) : NaN;
  // Without a usable expires_at the token serves this sync only.
  return { token: body.token, refreshAt: Number.isNaN(expires) ? 0 : expires - REFRESH_MARGIN_MS };
}
