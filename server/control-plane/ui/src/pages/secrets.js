// Secrets: names only. The API never returns a value, and this page never shows
// one: value fields are password inputs, cleared as soon as the secret is saved,
// and a rotation starts from empty fields. Creating and rotating are the same
// PUT of {value: {type, ...}}.
import { useState } from 'preact/hooks';
import { api, ApiError, enc, listAll } from '../api.js';
import { html, ErrorBox, PageTitle, usePoll } from '../ui.js';

/** Secret types and their fields (secret fields are typed as passwords). */
const TYPES = {
  token_auth: [['token', true]],
  basic_auth: [['username', false], ['password', true]],
  aws_auth: [['access_key_id', false], ['secret_access_key', true], ['session_token', true]],
  azure_auth: [['account_name', false], ['account_key', true]],
  gcp_auth: [['api_key', true]],
  api_key: [['key', false], ['value', true], ['in', false]],
  oidc_client_credentials: [['token_endpoint', false], ['client_id', false], ['client_secret', true]],
  github_app_auth: [['integration_id', false], ['installation_id', false], ['private_key', false]],
};

export function SecretsPage({ access }) {
  const { data, error, reload } = usePoll(() => listAll('/v1/secrets'));
  const [rotating, setRotating] = useState(undefined);
  return html`<${PageTitle} title="Secrets" />
    <p class="muted">Only names are shown: the API never returns a secret's value.</p>
    <${ErrorBox} error=${error} />
    ${data === undefined && !error
      ? html`<p>Loading…</p>`
      : html`<div class="table-wrap">
          <table aria-label="Secrets">
            <thead><tr><th>Name</th>${access.canWrite && html`<th>Actions</th>`}</tr></thead>
            <tbody>
              ${(data ?? []).length === 0 && html`<tr><td colspan="2" class="muted">No secrets yet.</td></tr>`}
              ${(data ?? []).map(
                (name) => html`<tr data-secret=${name}>
                  <td>${name}</td>
                  ${access.canWrite && html`<td><button type="button" class="secondary" onClick=${() => setRotating(name)}>Rotate</button></td>`}
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
    ${access.canWrite &&
    html`<${SecretForm} key=${rotating ?? ''} fixedName=${rotating} onDone=${() => (setRotating(undefined), reload())} onCancel=${() => setRotating(undefined)} />`}`;
}

function SecretForm({ fixedName, onDone, onCancel }) {
  const [name, setName] = useState(fixedName ?? '');
  const [type, setType] = useState('token_auth');
  const [values, setValues] = useState({});
  const [msg, setMsg] = useState({});

  const submit = async (e) => {
    e.preventDefault();
    setMsg({});
    const value = { type };
    for (const [field] of TYPES[type]) if (values[field]) value[field] = values[field];
    const target = (fixedName ?? name).trim();
    try {
      await api(`/v1/secrets/${enc(target)}`, { method: 'PUT', body: { value } });
      // Forget the value at once: it must not stay in the page.
      setValues({});
      setName('');
      setMsg({ done: `Secret "${target}" ${fixedName ? 'rotated' : 'saved'}.` });
      onDone();
    } catch (err) {
      setMsg({ error: err instanceof ApiError ? err : new ApiError(0, '', err.message) });
    }
  };

  const heading = fixedName ? `Rotate secret ${fixedName}` : 'New secret';
  return html`<section class="panel" aria-labelledby="secret-form">
    <h2 id="secret-form">${heading}</h2>
    <form class="grid" onSubmit=${submit} autocomplete="off">
      <div class="row2">
        ${!fixedName && html`<div><label for="secret-name">Name</label><input id="secret-name" required value=${name} onInput=${(e) => setName(e.currentTarget.value)} /></div>`}
        <div><label for="secret-type">Type</label>
          <select id="secret-type" value=${type} onChange=${(e) => (setType(e.currentTarget.value), setValues({}))}>
            ${Object.keys(TYPES).map((t) => html`<option value=${t}>${t}</option>`)}
          </select></div>
      </div>
      ${TYPES[type].map(
        ([field, secret]) => html`<div><label for=${`secret-field-${field}`}>${field}</label>
          <input id=${`secret-field-${field}`} type=${secret ? 'password' : 'text'} autocomplete=${secret ? 'new-password' : 'off'}
            value=${values[field] ?? ''} onInput=${(e) => setValues({ ...values, [field]: e.currentTarget.value })} /></div>`,
      )}
      <${ErrorBox} error=${msg.error} />
      ${msg.done && html`<div class="alert ok" role="status">${msg.done}</div>`}
      <div class="toolbar"><button type="submit">${fixedName ? 'Rotate' : 'Create secret'}</button>
        ${fixedName && html`<button type="button" class="secondary" onClick=${onCancel}>Cancel</button>`}</div>
    </form>
  </section>`;
}
