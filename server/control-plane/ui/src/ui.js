// Shared pieces of the dashboard pages: the htm template tag, the polling hook,
// error boxes (with file:row:col locations pulled out of build errors), status
// badges, relative times and labels.
import { h } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { ApiError } from './api.js';

export const html = htm.bind(h);

/** How often pages refresh their data (ms). Polling, not server-sent events: EventSource cannot send the Authorization header. */
export const POLL_MS = 2000;

/**
 * Load data now and again every POLL_MS while the tab is visible. `load` is an
 * async function; `deps` restart the polling (e.g. another bundle name).
 */
export function usePoll(load, deps = [], intervalMs = POLL_MS) {
  const [state, setState] = useState({ data: undefined, error: undefined, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  const run = useCallback(async () => {
    try {
      const data = await loadRef.current();
      setState({ data, error: undefined, loading: false });
    } catch (error) {
      setState((s) => ({ data: s.data, error, loading: false }));
    }
  }, []);
  useEffect(() => {
    setState({ data: undefined, error: undefined, loading: true });
    let stopped = false;
    let timer;
    const tick = async () => {
      if (!document.hidden) await run();
      if (!stopped) timer = setTimeout(tick, intervalMs);
    };
    tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, deps);
  return { ...state, reload: run };
}

const LOCATION = /([A-Za-z0-9_.@\/-]+\.(?:rego|json|ya?ml)):(\d+)(?::(\d+))?/g;

/** file:row[:col] locations named in an error message (OPA's `file:row: code: message` lines). */
export function errorLocations(message) {
  const out = [];
  const seen = new Set();
  for (const m of String(message ?? '').matchAll(LOCATION)) {
    const loc = { file: m[1], row: Number(m[2]), col: m[3] ? Number(m[3]) : undefined };
    const key = `${loc.file}:${loc.row}:${loc.col ?? ''}`;
    if (!seen.has(key)) out.push(loc), seen.add(key);
  }
  return out;
}

export const formatLocation = (l) => `${l.file}:${l.row}${l.col ? `:${l.col}` : ''}`;

/**
 * Where a located error opens: the file in its source's editor. `source` is
 * known for errors raised inside one source (the file is then a path in it);
 * a compile-step error names the path in the bundle, `/<source>/<path>`, which
 * is used when `<source>` is one of the bundle's sources.
 */
function sourceFileOf(l, sources) {
  if (l.source) return { source: l.source, file: l.file };
  const m = /^\/([^/]+)\/(.+)$/.exec(l.file);
  return m && sources.includes(m[1]) ? { source: m[1], file: m[2] } : undefined;
}

/**
 * A build error: the message as sent, and its locations as a list with
 * file:row:col. `errors` are the located errors of the status record (GET
 * /v1/bundles/{b}/status/latest/errors); without them the locations are read
 * from the message, which has no column (OPA's `file:row: code: message`).
 * A location links to the file in the source's editor, with the row selected.
 */
export function BuildError({ message, errors, sources = [] }) {
  if (!message) return null;
  const fromMessage = /^source (\S+) /.exec(message)?.[1];
  const locations = errors?.length
    ? errors.filter((e) => e.file).map((e) => ({ ...e, col: e.col || undefined }))
    : errorLocations(message).map((l) => ({ ...l, source: fromMessage }));
  return html`<div class="alert error" role="alert">
    <pre class="error-message">${message}</pre>
    ${locations.length > 0 &&
    html`<div>Locations:</div>
      <ul class="locations">
        ${locations.map((l) => {
          const code = html`<code class="location">${formatLocation(l)}</code>`;
          const at = sourceFileOf(l, sources);
          const what = l.code ? html` <span class="muted small">${l.code}: ${l.message}</span>` : '';
          return html`<li>${at ? html`<a href=${link('sources', at.source, at.file, String(l.row))}>${code}</a>` : code}${what}</li>`;
        })}
      </ul>`}
  </div>`;
}

/**
 * A create form's submit handler and outcome. `prepare()` builds the request body
 * from the fields (an Error it throws is shown as "Not sent: …" and nothing is
 * sent); `send(body)` sends it and returns the success message; `reset()` clears
 * the fields after a success.
 */
export function useFormSubmit(prepare, send, reset) {
  const [error, setError] = useState(undefined);
  const [done, setDone] = useState('');
  const submit = async (e) => {
    e.preventDefault();
    setError(undefined);
    setDone('');
    let body;
    try {
      body = prepare();
    } catch (err) {
      setError(new ApiError(0, '', `Not sent: ${err.message}`));
      return;
    }
    try {
      setDone(await send(body));
      reset();
    } catch (err) {
      setError(err);
    }
  };
  return { submit, error, done };
}

/** What a form's submit gave: the API error, or the success message. */
export function FormOutcome({ error, done }) {
  return html`<${ErrorBox} error=${error} />
    ${done && html`<div class="alert ok" role="status">${done}</div>`}`;
}

/** An API error; 403 is explained as a permission problem. */
export function ErrorBox({ error }) {
  if (!error) return null;
  const text = error.status === 403 ? `Not allowed: this API key may not do this (403 ${error.code}).` : `${error.message}${error.code ? ` (${error.status} ${error.code})` : ''}`;
  return html`<div class="alert error" role="alert">${text}</div>`;
}

export function StatusBadge({ status }) {
  if (!status) return html`<span class="badge none">no build yet</span>`;
  const kind = status === 'SUCCESS' ? 'ok' : 'bad';
  return html`<span class=${`badge ${kind}`}>${status}</span>`;
}

/** "12 s ago", with the exact time as a tooltip. */
export function Time({ iso }) {
  if (!iso) return html`<span class="muted">—</span>`;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return html`<span>${iso}</span>`;
  return html`<time datetime=${iso} title=${new Date(t).toLocaleString()}>${ago(t)}</time>`;
}

export function ago(t) {
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}

export function Labels({ labels }) {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return html`<span class="muted">none</span>`;
  return entries.map(([k, v]) => html`<span class="label">${k}=${v}</span>`);
}

/** `a=1, b=2` ↔ {a: "1", b: "2"}. */
export function parseLabels(text) {
  const out = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new Error(`"${part}" is not key=value`);
    out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

/** The page title, kept in the document title too. */
export function PageTitle({ children, title }) {
  useEffect(() => {
    document.title = `${title} · Regent control plane`;
  }, [title]);
  return html`<h1 tabindex="-1" id="page-title">${children ?? title}</h1>`;
}

export const link = (...parts) => '#/' + parts.map((p) => encodeURIComponent(p)).join('/');
