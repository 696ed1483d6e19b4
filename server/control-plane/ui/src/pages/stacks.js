// Stacks: every stack with its selectors and requirements, and a form whose
// selector and exclude_selector are previewed (POST /v1/stacks-preview, the
// builder's own matching) before the stack is saved. An empty exclude field
// sends no exclude_selector: an explicit {} would exclude every bundle.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, enc, listAll } from '../api.js';
import { html, ErrorBox, link, PageTitle, usePoll } from '../ui.js';

const showSelector = (s) =>
  s === undefined || s === null
    ? html`<span class="muted">—</span>`
    : Object.keys(s).length === 0
      ? html`<code>{}</code>`
      : Object.entries(s).map(([k, v]) => html`<span class="label">${k} ∈ ${(v ?? []).join(' | ') || '*'}</span>`);

/** Parse one selector field; '' means absent. Throws with the field name. */
function parseSelector(text, field) {
  if (text.trim() === '') return undefined;
  let v;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${field} is not valid JSON (${e.message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${field} must be an object of label → list of values`);
  for (const [k, list] of Object.entries(v)) {
    if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) throw new Error(`${field}.${k} must be a list of strings`);
  }
  return v;
}

export function StacksPage({ access }) {
  const { data, error, reload } = usePoll(() => listAll('/v1/stacks'));
  return html`<${PageTitle} title="Stacks" />
    <${ErrorBox} error=${error} />
    ${data === undefined && !error
      ? html`<p>Loading…</p>`
      : html`<div class="table-wrap">
          <table aria-label="Stacks">
            <thead><tr><th>Name</th><th>Selector</th><th>Exclude</th><th class="hide-narrow">Sources</th></tr></thead>
            <tbody>
              ${(data ?? []).length === 0 && html`<tr><td colspan="4" class="muted">No stacks yet.</td></tr>`}
              ${(data ?? []).map(
                (s) => html`<tr data-stack=${s.name}>
                  <td>${s.name}</td><td>${showSelector(s.selector)}</td><td>${showSelector(s.exclude_selector)}</td>
                  <td class="hide-narrow">${(s.requirements ?? []).map((r) => html`<a href=${link('sources', r.source)}>${r.source}</a> `)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
    <${StackForm} canWrite=${access.canWrite} onSaved=${reload} />`;
}

function StackForm({ canWrite, onSaved }) {
  const [name, setName] = useState('');
  const [selector, setSelector] = useState('{"env": ["prod"]}');
  const [exclude, setExclude] = useState('');
  const [requirements, setRequirements] = useState('');
  const [preview, setPreview] = useState({});
  const [msg, setMsg] = useState({});

  const body = () => {
    const b = { selector: parseSelector(selector, 'selector') ?? {} };
    const ex = parseSelector(exclude, 'exclude_selector');
    if (ex !== undefined) b.exclude_selector = ex;
    return b;
  };
  // Only the newest preview request may update the panel (answers can arrive out of order).
  const latestRequest = useRef(0);
  const runPreview = async () => {
    const id = ++latestRequest.current;
    let b;
    try {
      b = body();
    } catch (e) {
      setPreview({ error: new ApiError(0, '', e.message) });
      return;
    }
    try {
      const res = await api('/v1/stacks-preview', { method: 'POST', body: b });
      if (id === latestRequest.current) setPreview({ bundles: res.result?.bundles ?? [] });
    } catch (e) {
      if (id === latestRequest.current) setPreview({ error: e });
    }
  };
  // Preview as the selectors are typed, a moment after the last key press.
  useEffect(() => {
    const t = setTimeout(runPreview, 400);
    return () => clearTimeout(t);
  }, [selector, exclude]);

  const save = async (e) => {
    e.preventDefault();
    setMsg({});
    let b;
    try {
      b = body();
    } catch (err) {
      setMsg({ error: new ApiError(0, '', `Not sent: ${err.message}`) });
      return;
    }
    b.requirements = requirements.split(',').map((s) => s.trim()).filter(Boolean).map((source) => ({ source }));
    try {
      await api(`/v1/stacks/${enc(name.trim())}`, { method: 'PUT', body: b });
      setMsg({ done: `Stack "${name.trim()}" saved.` });
      onSaved();
    } catch (err) {
      setMsg({ error: err });
    }
  };

  return html`<section class="panel" aria-labelledby="stack-form">
    <h2 id="stack-form">${canWrite ? 'New stack' : 'Selector preview'}</h2>
    <form class="grid" onSubmit=${save}>
      ${canWrite && html`<div><label for="stack-name">Name</label><input id="stack-name" required value=${name} onInput=${(e) => setName(e.currentTarget.value)} /></div>`}
      <div class="row2">
        <div><label for="stack-selector">Selector <span class="hint">JSON: label → values (globs)</span></label>
          <textarea id="stack-selector" class="code short" spellcheck="false" value=${selector} onInput=${(e) => setSelector(e.currentTarget.value)}></textarea></div>
        <div><label for="stack-exclude">Exclude selector <span class="hint">JSON; leave empty for none</span></label>
          <textarea id="stack-exclude" class="code short" spellcheck="false" value=${exclude} onInput=${(e) => setExclude(e.currentTarget.value)}></textarea></div>
      </div>
      <div aria-live="polite" class="panel" id="stack-preview">
        <div class="toolbar"><strong>Matching bundles</strong><span class="spacer"></span>
          <button type="button" class="secondary" onClick=${runPreview}>Preview</button></div>
        <${ErrorBox} error=${preview.error} />
        ${preview.bundles &&
        (preview.bundles.length === 0
          ? html`<p class="muted">No bundle matches.</p>`
          : html`<ul class="preview-bundles">${preview.bundles.map((b) => html`<li><a href=${link('bundles', b)}>${b}</a></li>`)}</ul>`)}
      </div>
      ${canWrite &&
      html`<div><label for="stack-requirements">Sources <span class="hint">names, comma-separated</span></label>
          <input id="stack-requirements" value=${requirements} onInput=${(e) => setRequirements(e.currentTarget.value)} /></div>
        <${ErrorBox} error=${msg.error} />
        ${msg.done && html`<div class="alert ok" role="status">${msg.done}</div>`}
        <div><button type="submit">Save stack</button></div>`}
    </form>
  </section>`;
}
