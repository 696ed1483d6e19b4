// The dashboard's entry point: sign-in state, the hash router (#/bundles,
// #/bundles/<name>, #/sources, #/sources/<name>[/<file>/<row>], #/stacks,
// #/secrets, #/fleet),
// and the navigation. Each page is one file under pages/.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { clearKey, detectAccess, getKey, setKey } from './api.js';
import { html } from './ui.js';
import { SignInPage } from './pages/signin.js';
import { BundlesPage } from './pages/bundles.js';
import { BundlePage } from './pages/bundle.js';
import { SourcesPage } from './pages/sources.js';
import { SourcePage } from './pages/source.js';
import { StacksPage } from './pages/stacks.js';
import { SecretsPage } from './pages/secrets.js';
import { FleetPage } from './pages/fleet.js';

const NAV = [
  ['bundles', 'Bundles'],
  ['sources', 'Sources'],
  ['stacks', 'Stacks'],
  ['secrets', 'Secrets'],
  ['fleet', 'Fleet'],
];

function currentRoute() {
  const parts = window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] ?? 'bundles', name: parts[1], file: parts[2], line: parts[3] ? Number(parts[3]) : undefined };
}

function Page({ route, access }) {
  const props = { access, name: route.name, file: route.file, line: route.line };
  switch (route.page) {
    case 'bundles':
      return route.name ? html`<${BundlePage} ...${props} />` : html`<${BundlesPage} ...${props} />`;
    case 'sources':
      return route.name ? html`<${SourcePage} ...${props} />` : html`<${SourcesPage} ...${props} />`;
    case 'stacks':
      return html`<${StacksPage} ...${props} />`;
    case 'secrets':
      return html`<${SecretsPage} ...${props} />`;
    case 'fleet':
      return html`<${FleetPage} ...${props} />`;
    default:
      return html`<h1>Not found</h1><p>No page "${route.page}". <a href="#/bundles">Go to the bundles</a>.</p>`;
  }
}

function App() {
  const [access, setAccess] = useState(undefined);
  const [checking, setChecking] = useState(Boolean(getKey()));
  const [route, setRoute] = useState(currentRoute());

  useEffect(() => {
    const onHash = () => {
      setRoute(currentRoute());
      // Move focus to the new page's heading, so keyboard and screen-reader users land on it.
      setTimeout(() => document.getElementById('page-title')?.focus(), 0);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    const onUnauthorized = () => {
      clearKey();
      setAccess(undefined);
    };
    window.addEventListener('regent:unauthorized', onUnauthorized);
    return () => window.removeEventListener('regent:unauthorized', onUnauthorized);
  }, []);

  useEffect(() => {
    if (!getKey()) return;
    detectAccess()
      .then(setAccess)
      .catch(() => clearKey())
      .finally(() => setChecking(false));
  }, []);

  const signIn = async (key) => {
    const found = await detectAccess(key);
    setKey(key);
    setAccess(found);
  };
  const signOut = () => {
    clearKey();
    setAccess(undefined);
  };

  if (checking) return html`<p class="loading">Checking the API key…</p>`;
  if (!access) return html`<${SignInPage} onSignIn=${signIn} />`;
  return html`<div class="shell">
    <nav class="nav" aria-label="Main">
      <a class="brand" href="#/bundles">Regent control plane</a>
      <ul>
        ${NAV.map(
          ([page, label]) =>
            html`<li><a href=${`#/${page}`} aria-current=${route.page === page ? 'page' : undefined}>${label}</a></li>`,
        )}
      </ul>
      <div class="who">
        <span><span data-testid="who">${access.id}</span> · role <strong data-testid="role">${access.role}</strong>${access.canWrite ? '' : ' (read-only)'}</span>
        <button type="button" class="secondary" onClick=${signOut}>Sign out</button>
      </div>
    </nav>
    <main id="main"><${Page} route=${route} access=${access} /></main>
  </div>`;
}

const root = document.getElementById('app');
root.textContent = ''; // drop the "Loading" placeholder of index.html
render(html`<${App} />`, root);
