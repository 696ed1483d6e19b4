// One source: its definition, an editor for its inline policy files (saved as a
// PUT of the whole definition, files base64-encoded as the API wants), and the
// source-data browser and editor, which checks that a document is valid JSON
// before sending it. The API has no call that lists a source's data paths, so
// the browser opens a path typed in and remembers the paths used in this tab.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, base64ToText, enc, textToBase64 } from '../api.js';
import { html, ErrorBox, PageTitle } from '../ui.js';
import { jsonErrorAt } from '../json-check.js';
import { originOf } from './sources.js';

export function SourcePage({ name, access, file, line }) {
  const [source, setSource] = useState(undefined);
  const [error, setError] = useState(undefined);
  const load = () =>
    api(`/v1/sources/${enc(name)}`)
      .then((b) => (setSource(b.result), setError(undefined)))
      .catch(setError);
  useEffect(() => {
    setSource(undefined);
    load();
  }, [name]);

  return html`<p class="small"><a href="#/sources">← Sources</a></p>
    <${PageTitle} title=${`Source ${name}`} />
    <${ErrorBox} error=${error} />
    ${source &&
    html`<p>${originOf(source)}</p>
      ${source.files && html`<${FilesEditor} source=${source} canWrite=${access.canWrite} onSaved=${load} file=${file} line=${line} />`}
      <${DataEditor} name=${name} canWrite=${access.canWrite} />
      <section class="panel" aria-labelledby="definition">
        <h2 id="definition">Definition</h2>
        <pre>${JSON.stringify({ ...source, files: source.files ? Object.keys(source.files) : undefined }, null, 2)}</pre>
        ${source.files && html`<p class="muted small">Inline file contents are shown in the file editor above.</p>`}
      </section>`}`;
}

/** Select row `line` (1-based) of a textarea and scroll it into view. */
function selectLine(textarea, line) {
  const lines = textarea.value.split('\n');
  const row = Math.min(Math.max(line, 1), lines.length);
  const start = lines.slice(0, row - 1).reduce((n, l) => n + l.length + 1, 0);
  textarea.focus();
  textarea.setSelectionRange(start, start + lines[row - 1].length);
  const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 18;
  textarea.scrollTop = Math.max(0, (row - 3) * lineHeight);
}

function FilesEditor({ source, canWrite, onSaved, file, line }) {
  const paths = Object.keys(source.files).sort();
  const [path, setPath] = useState(file && paths.includes(file) ? file : paths[0]);
  // The text is there from the first render (an effect would set it after the first
  // paint, over anything typed in between), and is replaced only when another file is
  // opened or the source is reloaded (after a save).
  const fileText = (p) => (p && source.files[p] !== undefined ? base64ToText(source.files[p]) : '');
  const [text, setText] = useState(() => fileText(path));
  const shown = useRef({ path, source });
  const [msg, setMsg] = useState({});
  const textarea = useRef(null);
  useEffect(() => {
    if (shown.current.path === path && shown.current.source === source) return;
    shown.current = { path, source };
    setText(fileText(path));
  }, [path, source]);
  // Opened from a build error's location: select that row once the text is in.
  useEffect(() => {
    if (file === path && line && textarea.current && text) selectLine(textarea.current, line);
  }, [file, line, text === '']);

  const save = async (e) => {
    e.preventDefault();
    setMsg({});
    const body = { ...source, files: { ...source.files, [path]: textToBase64(text) } };
    delete body.name;
    try {
      await api(`/v1/sources/${enc(source.name)}`, { method: 'PUT', body });
      setMsg({ done: `Saved ${path}; bundles using this source rebuild now.` });
      onSaved();
    } catch (err) {
      setMsg({ error: err });
    }
  };

  return html`<section class="panel" aria-labelledby="files">
    <h2 id="files">Policy files</h2>
    <div class="split">
      <ul class="list-plain" aria-label="Files">
        ${paths.map((p) => html`<li><button type="button" class="link" aria-current=${p === path ? 'true' : 'false'} onClick=${() => setPath(p)}>${p}</button></li>`)}
      </ul>
      <form onSubmit=${save}>
        <label for="file-text">${path}</label>
        <textarea id="file-text" ref=${textarea} class="code" spellcheck="false" readonly=${!canWrite} value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
        <${ErrorBox} error=${msg.error} />
        ${msg.done && html`<div class="alert ok" role="status">${msg.done}</div>`}
        ${canWrite && html`<div class="toolbar"><button type="submit">Save file</button></div>`}
      </form>
    </div>
  </section>`;
}

const recentKey = (name) => `regent.controlPlane.dataPaths.${name}`;

/** Where a JSON text goes wrong, for the message shown instead of sending it. */
const describeJsonError = (text, err) => jsonErrorAt(text) ?? err.message;

function DataEditor({ name, canWrite }) {
  const [recent, setRecent] = useState(() => JSON.parse(sessionStorage.getItem(recentKey(name)) ?? '[]'));
  const [path, setPath] = useState(recent[0] ?? '');
  const [text, setText] = useState('');
  const [loaded, setLoaded] = useState(undefined);
  const [msg, setMsg] = useState({});

  const remember = (p) => {
    const next = [p, ...recent.filter((x) => x !== p)].slice(0, 20);
    setRecent(next);
    sessionStorage.setItem(recentKey(name), JSON.stringify(next));
  };
  const url = (p) => `/v1/sources/${enc(name)}/data/${p.split('/').filter(Boolean).map(enc).join('/')}`;

  const open = async (p = path) => {
    setMsg({});
    setPath(p);
    try {
      const body = await api(url(p));
      setText(body.result === undefined ? '' : JSON.stringify(body.result, null, 2));
      setLoaded(p);
      if (body.result === undefined) setMsg({ info: `No document at "${p}" yet.` });
      else remember(p);
    } catch (err) {
      setMsg({ error: err });
    }
  };
  const save = async (e) => {
    e.preventDefault();
    let value;
    try {
      value = JSON.parse(text);
    } catch (err) {
      setMsg({ error: new ApiError(0, '', `Not sent: the document is not valid JSON: ${describeJsonError(text, err)}`) });
      return;
    }
    try {
      await api(url(path), { method: 'PUT', body: value });
      setMsg({ done: `Saved data at "${path}".` });
      setLoaded(path);
      remember(path);
    } catch (err) {
      setMsg({ error: err });
    }
  };
  const remove = async () => {
    try {
      await api(url(path), { method: 'DELETE' });
      setMsg({ done: `Deleted data at "${path}".` });
      setText('');
    } catch (err) {
      setMsg({ error: err });
    }
  };

  return html`<section class="panel" aria-labelledby="data">
    <h2 id="data">Source data</h2>
    <form class="grid" onSubmit=${save}>
      <div class="toolbar">
        <label for="data-path" class="grow">Path <span class="hint">e.g. roles/admins (stored at path/data.json)</span>
          <input id="data-path" value=${path} list="data-paths" onInput=${(e) => setPath(e.currentTarget.value)} /></label>
        <datalist id="data-paths">${recent.map((p) => html`<option value=${p} />`)}</datalist>
        <button type="button" class="secondary" onClick=${() => open()} disabled=${!path.trim()}>Open</button>
      </div>
      ${recent.length > 0 && html`<div class="small">Recent: ${recent.map((p) => html`<button type="button" class="link secondary" onClick=${() => open(p)}>${p}</button> `)}</div>`}
      <div><label for="data-text">Document (JSON)${loaded ? html` <span class="hint">at ${loaded}</span>` : ''}</label>
        <textarea id="data-text" class="code" spellcheck="false" readonly=${!canWrite} value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea></div>
      <${ErrorBox} error=${msg.error} />
      ${msg.info && html`<div class="alert info" role="status">${msg.info}</div>`}
      ${msg.done && html`<div class="alert ok" role="status">${msg.done}</div>`}
      ${canWrite &&
      html`<div class="toolbar"><button type="submit" disabled=${!path.trim()}>Save data</button>
        <button type="button" class="danger" onClick=${remove} disabled=${!path.trim()}>Delete data</button></div>`}
    </form>
  </section>`;
}
