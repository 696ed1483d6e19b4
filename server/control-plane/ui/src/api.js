// The dashboard's only way to the server: the same /v1 API as curl, with the API
// key from session storage as a bearer token. Errors become ApiError with the
// HTTP status and the OPA-style {code, message} body (401 is plain text).
// detectAccess() asks GET /v1/whoami what the key may do.

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
 * What this key may do, from its role (GET /v1/whoami, a Regent extension):
 * administrators write everything; viewers read everything and write nothing;
 * owner and stack_owner keys create definitions and see only their own (no
 * fleet, no statuses), so they get the write controls and each refused write
 * shows its 403. An engine key is refused: it may only send status reports.
 */
export async function detectAccess(key = getKey()) {
  const { result } = await api('/v1/whoami', { key });
  const role = result.role;
  if (role === 'engine') throw new ApiError(403, 'not_authorized', 'This is an engine key: it may only send status reports. Sign in with a user key.');
  return { id: result.id, role, canWrite: role !== 'viewer', canReadAll: role === 'administrator' || role === 'viewer' };
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
