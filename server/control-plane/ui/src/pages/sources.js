// Sources: every source with its origin (git, directory, builtin, inline files,
// datasources) and requirements; for keys that may write, a form to create one
// from a policy file typed in, plus any other definition fields as JSON.
import { useState } from 'preact/hooks';
import { api, enc, listAll, textToBase64 } from '../api.js';
import { html, ErrorBox, FormOutcome, link, PageTitle, useFormSubmit, usePoll } from '../ui.js';

/** A short description of where a source's content comes from. */
export function originOf(s) {
  const parts = [];
  if (s.git) parts.push(`git ${s.git.repo}${s.git.reference ? ` @ ${s.git.reference}` : ''}`);
  if (s.directory) parts.push(`directory ${s.directory}`);
  if (s.builtin) parts.push(`builtin ${s.builtin}`);
  if (s.files) parts.push(`${Object.keys(s.files).length} inline file(s)`);
  if (s.datasources?.length) parts.push(`${s.datasources.length} datasource(s)`);
  return parts.join(', ') || 'source data only';
}

export function SourcesPage({ access }) {
  const { data, error, reload } = usePoll(() => listAll('/v1/sources'));
  return html`<${PageTitle} title="Sources" />
    <${ErrorBox} error=${error} />
    ${data === undefined && !error
      ? html`<p>Loading…</p>`
      : html`<div class="table-wrap">
          <table aria-label="Sources">
            <thead><tr><th>Name</th><th>Origin</th><th class="hide-narrow">Requires</th></tr></thead>
            <tbody>
              ${(data ?? []).length === 0 && html`<tr><td colspan="3" class="muted">No sources yet.</td></tr>`}
              ${(data ?? []).map(
                (s) => html`<tr data-source=${s.name}>
                  <td><a href=${link('sources', s.name)}>${s.name}</a></td>
                  <td>${originOf(s)}</td>
                  <td class="hide-narrow">${(s.requirements ?? []).map((r) => r.source).join(', ')}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
    ${access.canWrite && html`<${NewSourceForm} onCreated=${reload} />`}`;
}

function NewSourceForm({ onCreated }) {
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const [text, setText] = useState('');
  const [extra, setExtra] = useState('{}');
  const prepare = () => {
    let body;
    try {
      body = JSON.parse(extra || '{}');
    } catch (err) {
      throw new Error(`the definition is not valid JSON (${err.message})`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('the definition is not valid JSON (the definition must be a JSON object)');
    if (path.trim()) body.files = { ...(body.files ?? {}), [path.trim()]: textToBase64(text) };
    return body;
  };
  const send = async (body) => {
    await api(`/v1/sources/${enc(name.trim())}`, { method: 'PUT', body });
    return `Source "${name.trim()}" saved.`;
  };
  const reset = () => {
    for (const clear of [setName, setPath, setText]) clear('');
    setExtra('{}');
    onCreated();
  };
  const { submit, error, done } = useFormSubmit(prepare, send, reset);

  return html`<section class="panel" aria-labelledby="new-source">
    <h2 id="new-source">New source</h2>
    <form class="grid" onSubmit=${submit}>
      <div><label for="source-name">Name</label><input id="source-name" required value=${name} onInput=${(e) => setName(e.currentTarget.value)} /></div>
      <div><label for="source-file-path">Policy file <span class="hint">path inside the source, e.g. app/authz.rego (optional)</span></label>
        <input id="source-file-path" value=${path} onInput=${(e) => setPath(e.currentTarget.value)} /></div>
      <div><label for="source-file-text">Policy text</label>
        <textarea id="source-file-text" class="code" spellcheck="false" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea></div>
      <div><label for="source-extra">Other fields <span class="hint">JSON: git, directory, paths, datasources, requirements…</span></label>
        <textarea id="source-extra" class="code short" spellcheck="false" rows="4" value=${extra} onInput=${(e) => setExtra(e.currentTarget.value)}></textarea></div>
      <${FormOutcome} error=${error} done=${done} />
      <div><button type="submit">Create source</button></div>
    </form>
  </section>`;
}
