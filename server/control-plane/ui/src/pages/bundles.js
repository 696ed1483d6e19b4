// Bundles: every bundle with its labels and its latest build (status, revision,
// time), refreshed by polling; and, for keys that may write, a form to create one.
// One poll is one request per 100 bundles: GET /v1/bundles-summary (a Regent
// extension) returns each bundle with its latest status record.
import { useState } from 'preact/hooks';
import { api, enc, listAll } from '../api.js';
import { html, ErrorBox, FormOutcome, Labels, link, PageTitle, parseLabels, StatusBadge, Time, useFormSubmit, usePoll } from '../ui.js';

async function loadBundles() {
  const bundles = await listAll('/v1/bundles-summary');
  // latest_status: null before the first build, absent for keys that may not read statuses.
  return bundles.map((b) => ({ ...b, latest: b.latest_status ?? undefined }));
}

export function BundlesPage({ access }) {
  const { data, error, reload } = usePoll(loadBundles);
  return html`<${PageTitle} title="Bundles" />
    <${ErrorBox} error=${error} />
    ${data === undefined && !error
      ? html`<p>Loading…</p>`
      : html`<div class="table-wrap">
          <table aria-label="Bundles">
            <thead><tr><th>Name</th><th>Labels</th><th>Latest build</th><th>Revision</th><th class="hide-narrow">Built</th></tr></thead>
            <tbody>
              ${(data ?? []).length === 0 && html`<tr><td colspan="5" class="muted">No bundles yet.</td></tr>`}
              ${(data ?? []).map(
                (b) => html`<tr data-bundle=${b.name}>
                  <td><a href=${link('bundles', b.name)}>${b.name}</a></td>
                  <td><${Labels} labels=${b.labels} /></td>
                  <td><${StatusBadge} status=${b.latest?.status} /> ${b.latest && html`<span class="muted small">${b.latest.phase}</span>`}</td>
                  <td><code>${b.latest ? b.latest.revision || '""' : ''}</code></td>
                  <td class="hide-narrow"><${Time} iso=${b.latest?.updated_at ?? b.latest?.created_at} /></td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
    ${access.canWrite && html`<${NewBundleForm} onCreated=${reload} />`}`;
}

function NewBundleForm({ onCreated }) {
  const [name, setName] = useState('');
  const [labels, setLabels] = useState('');
  const [requirements, setRequirements] = useState('');
  const [storage, setStorage] = useState('');
  const [revision, setRevision] = useState('');
  const storageText = storage || JSON.stringify({ filesystem: { path: `bundles/${name || '<name>'}.tar.gz` } });
  const prepare = () => {
    const body = {
      labels: parseLabels(labels),
      object_storage: JSON.parse(storageText),
      requirements: requirements.split(',').map((s) => s.trim()).filter(Boolean).map((source) => ({ source })),
    };
    if (revision.trim()) body.revision = revision.trim();
    return body;
  };
  const send = async (body) => {
    await api(`/v1/bundles/${enc(name.trim())}`, { method: 'PUT', body });
    return `Bundle "${name.trim()}" saved; it builds within a second.`;
  };
  const reset = () => {
    for (const clear of [setName, setLabels, setRequirements, setStorage, setRevision]) clear('');
    onCreated();
  };
  const { submit, error, done } = useFormSubmit(prepare, send, reset);

  return html`<section class="panel" aria-labelledby="new-bundle">
    <h2 id="new-bundle">New bundle</h2>
    <form class="grid" onSubmit=${submit}>
      <div class="row2">
        <div><label for="bundle-name">Name</label><input id="bundle-name" required value=${name} onInput=${(e) => setName(e.currentTarget.value)} /></div>
        <div><label for="bundle-labels">Labels <span class="hint">key=value, comma-separated</span></label>
          <input id="bundle-labels" value=${labels} placeholder="env=prod, team=payments" onInput=${(e) => setLabels(e.currentTarget.value)} /></div>
      </div>
      <div><label for="bundle-requirements">Sources <span class="hint">names, comma-separated</span></label>
        <input id="bundle-requirements" value=${requirements} onInput=${(e) => setRequirements(e.currentTarget.value)} /></div>
      <div><label for="bundle-storage">Object storage <span class="hint">JSON: filesystem, aws, gcp or azure</span></label>
        <input id="bundle-storage" class="code" value=${storageText} onInput=${(e) => setStorage(e.currentTarget.value)} /></div>
      <div><label for="bundle-revision">Revision <span class="hint">optional expression, e.g. $"v-{substring(input.bundle.hash, 0, 8)}"</span></label>
        <input id="bundle-revision" class="code" value=${revision} onInput=${(e) => setRevision(e.currentTarget.value)} /></div>
      <${FormOutcome} error=${error} done=${done} />
      <div><button type="submit">Create bundle</button></div>
    </form>
  </section>`;
}
