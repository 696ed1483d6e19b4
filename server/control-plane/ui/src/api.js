// The dashboard's only way to the server: the same /v1 API as curl, with the API
// key from session storage as a bearer token. Errors become ApiError with the
// HTTP status and the OPA-style {code, message} body (401 is plain text).
// detectAccess() finds out what the key may do without changing anything.

const KEY_STORAGE = 'regent.controlPlane.apiKey';

/** The API prefix: the dashboard lives at `<prefix>/ui/`. */
export function apiBase() {
  const path = window.location.pathname;
  const at = path.lastIndexOf('/ui');
  return at >= 0 ? path.slice(0, at) : '';
}

export const getKey = () => sessionStorage.getItem(KEY_STORAGE);
export const setKey = (key) => sessionStorage.setItem(KEY_STORAGE, key);
export const clearKey = () => sessionStorage.removeItem(KEY_STORAGE);

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Call the API: `api('/v1/bundles')`, `api(path, {method: 'PUT', body})`; resolves with the parsed JSON. */
export async function api(path, { method = 'GET', body, key = getKey() } = {}) {
  const headers = { authorization: `Bearer ${key ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(apiBase() + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, 'network_error', `the control plane did not answer (${e.message})`);
  }
  const text = await res.text();
  if (res.status === 401) {
    // The signed-in key stopped working (removed from the configuration): back to sign-in.
    if (key && key === getKey()) window.dispatchEvent(new Event('regent:unauthorized'));
    throw new ApiError(401, 'unauthorized', 'Unauthorized: the API key was not accepted');
  }
  let json;
  try {
    json = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new ApiError(res.status, 'bad_response', `unexpected ${res.status} response: ${text.slice(0, 200)}`);
  }
  if (!res.ok) throw new ApiError(res.status, json.code ?? 'error', json.message ?? `HTTP ${res.status}`);
  return json;
}

/** Every item of a list endpoint, following next_cursor (an empty list is `{}` or `{"result":null}`). */
export async function listAll(path) {
  const out = [];
  let cursor;
  for (let page = 0; page < 100; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const body = await api(cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path);
    out.push(...(body.result ?? []));
    if (!body.next_cursor) break;
    cursor = body.next_cursor;
  }
  return out;
}

export const enc = encodeURIComponent;

/**
 * What this key may do. Reads are tried directly. For writes, a DELETE of a
 * secret name that cannot exist is a no-op that still runs the permission check
 * first (the API checks the role before existence): 404 means the key may
 * write, 403 that it may not. The fleet needs the view role, so owner keys get
 * 403 there: they may create definitions, and each write shows its own 403.
 */
export async function detectAccess(key = getKey()) {
  await api('/v1/bundles?limit=1', { key });
  const probe = `regent-dashboard-probe-${crypto.getRandomValues(new Uint32Array(2)).join('-')}`;
  let admin = false;
  try {
    await api(`/v1/secrets/${probe}`, { method: 'DELETE', key });
    admin = true;
  } catch (e) {
    if (e.status === 404) admin = true;
    else if (e.status !== 403) throw e;
  }
  let fleet = true;
  try {
    await api('/v1/fleet', { key });
  } catch (e) {
    if (e.status === 403) fleet = false;
  }
  const role = admin ? 'administrator' : fleet ? 'viewer' : 'owner';
  return { role, canWrite: role !== 'viewer', canReadAll: role !== 'owner' };
}

/** UTF-8 text ↔ base64 (source `files` are base64 in the API). */
export function textToBase64(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export function base64ToText(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
