// Sign-in page: the API key is checked against the API (and what it may do is
// detected) before it is kept in session storage, which the browser clears when
// the tab closes. The key is never put in the URL.
import { useState } from 'preact/hooks';
import { html, ErrorBox } from '../ui.js';

export function SignInPage({ onSignIn }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onSignIn(key.trim());
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return html`<main class="signin">
    <div class="panel">
      <h1 id="page-title" tabindex="-1">Regent control plane</h1>
      <p class="muted">Sign in with an API key from the control plane's <code>tokens</code> configuration.
        The key stays in this tab's session storage and is sent as a bearer token to the same <code>/v1</code> API.</p>
      <form class="stack-form" onSubmit=${submit}>
        <div>
          <label for="api-key">API key</label>
          <input id="api-key" name="api-key" type="password" autocomplete="off" required value=${key} onInput=${(e) => setKey(e.currentTarget.value)} autofocus />
        </div>
        <${ErrorBox} error=${error} />
        <div><button type="submit" disabled=${busy || key.trim() === ''}>${busy ? 'Signing in…' : 'Sign in'}</button></div>
      </form>
    </div>
  </main>`;
}
