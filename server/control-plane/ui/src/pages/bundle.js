// One bundle: its definition (labels, requirements, object storage), the latest
// build with its error and file:row:col locations (from the Regent route
// /v1/bundles/{b}/status/latest/errors), the status history (the last
// ten records), the stacks whose selectors match it (asked of the server's
// /v1/bundles/{b}/stacks, so the matching is the builder's own), the engines
// serving it, and "Rebuild now" for keys that may write. A poll is five
// requests, whatever the number of stacks.
import { useState } from 'preact/hooks';
import { api, ApiError, enc } from '../api.js';
import { html, BuildError, ErrorBox, Labels, link, PageTitle, StatusBadge, Time, usePoll } from '../ui.js';

const optional = (p) => p.catch((e) => (e instanceof ApiError && (e.status === 404 || e.status === 403) ? undefined : Promise.reject(e)));

async function loadBundle(name) {
  const [bundle, history, located, matching, fleet] = await Promise.all([
    api(`/v1/bundles/${enc(name)}`).then((b) => b.result),
    optional(api(`/v1/bundles/${enc(name)}/status`)).then((b) => b?.result ?? []),
    optional(api(`/v1/bundles/${enc(name)}/status/latest/errors`)).then((b) => b?.result),
    optional(api(`/v1/bundles/${enc(name)}/stacks`)).then((b) => b?.result?.stacks ?? []),
    optional(api('/v1/fleet/bundles')).then((b) => (b?.result ?? []).find((x) => x.bundle === name)),
  ]);
  return { bundle, history, located, matching, fleet };
}

export function BundlePage({ name, access }) {
  const { data, error, reload } = usePoll(() => loadBundle(name), [name]);
  const [action, setAction] = useState({});

  const rebuild = async () => {
    setAction({ busy: true });
    try {
      await api(`/v1/bundles/${enc(name)}/rebuild`, { method: 'POST', body: {} });
      setAction({ done: 'Rebuild queued.' });
      setTimeout(reload, 500);
    } catch (e) {
      setAction({ error: e });
    }
  };

  // The latest record and its located errors come from one read (the history list is
  // a second read, which can straddle a build: its first row may be a record older or
  // newer than the errors, and would hide their columns until a poll reads both alike).
  const latest = data?.located ?? data?.history?.[0];
  const located = data?.located?.errors;
  const sources = (data?.bundle?.requirements ?? []).map((r) => r.source).filter(Boolean);
  return html`<p class="small"><a href="#/bundles">← Bundles</a></p>
    <${PageTitle} title=${`Bundle ${name}`} />
    <${ErrorBox} error=${error} />
    ${data &&
    html`<div class="toolbar">
        <span>Latest build: <${StatusBadge} status=${latest?.status} /></span>
        ${latest && html`<span class="muted">revision <code>${latest.revision || '""'}</code>, <${Time} iso=${latest.updated_at ?? latest.created_at} /></span>`}
        <span class="spacer"></span>
        ${access.canWrite && html`<button type="button" onClick=${rebuild} disabled=${action.busy}>Rebuild now</button>`}
      </div>
      ${action.done && html`<div class="alert ok" role="status">${action.done}</div>`}
      <${ErrorBox} error=${action.error} />
      ${latest && latest.status !== 'SUCCESS' && html`<${BuildError} message=${latest.error_message} errors=${located} sources=${sources} />`}
      <section class="panel" aria-labelledby="definition">
        <h2 id="definition">Definition</h2>
        <dl class="facts">
          <dt>Labels</dt><dd><${Labels} labels=${data.bundle.labels} /></dd>
          <dt>Requirements</dt>
          <dd>${(data.bundle.requirements ?? []).length === 0
            ? html`<span class="muted">none</span>`
            : (data.bundle.requirements ?? []).map(
                (r) => html`<div>${r.source ? html`<a href=${link('sources', r.source)}>${r.source}</a>` : html`<code>${JSON.stringify(r)}</code>`}
                  ${r.path && html` <span class="muted">path ${r.path}</span>`}${r.prefix && html` <span class="muted">prefix ${r.prefix}</span>`}</div>`,
              )}</dd>
          <dt>Matching stacks</dt>
          <dd>${data.matching.length === 0 ? html`<span class="muted">none</span>` : data.matching.map((s) => html`<span class="label">${s}</span>`)}</dd>
          <dt>Object storage</dt><dd><code>${JSON.stringify(data.bundle.object_storage)}</code></dd>
          ${data.fleet &&
          html`<dt>Engines</dt>
            <dd>${data.fleet.latest_revision == null ? html`no successful build yet · ${data.fleet.engines} live` : html`${data.fleet.serving_latest} of ${data.fleet.engines} live serving the latest build`}
              ${data.fleet.stale?.length > 0 && html` · ${data.fleet.stale.length} stale${data.fleet.stale_behind?.length ? html` (${data.fleet.stale_behind.length} on an old revision)` : ''}`}
              ${data.fleet.seconds_to_first_serve !== undefined && html` · first served ${data.fleet.seconds_to_first_serve.toFixed(1)} s after the build`}
              ${' · '}<a href="#/fleet">fleet</a></dd>`}
        </dl>
      </section>
      <section aria-labelledby="history">
        <h2 id="history">Status history</h2>
        <div class="table-wrap">
          <table aria-label="Status history">
            <thead><tr><th>Revision</th><th>Phase</th><th>Status</th><th>Time</th><th>Error</th></tr></thead>
            <tbody>
              ${data.history.length === 0 && html`<tr><td colspan="5" class="muted">No build yet.</td></tr>`}
              ${data.history.map(
                (s) => html`<tr>
                  <td class="nowrap"><code>${s.revision || '""'}</code></td><td>${s.phase}</td><td><${StatusBadge} status=${s.status} /></td>
                  <td class="nowrap"><${Time} iso=${s.updated_at ?? s.created_at} /></td>
                  <td class="small">${s.error_message ? s.error_message.split('\n')[0] : ''}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>
      </section>`}`;
}
