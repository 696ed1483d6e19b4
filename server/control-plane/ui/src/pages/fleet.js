// Fleet: every engine that reports status to the control plane, with the
// revision it serves per bundle. Engines behind a bundle's latest successful
// build are highlighted; per bundle, how many engines serve the latest build and
// how long after the build the first engine served it. Stale engines (no report
// within fleet.stale_after) are marked; the rollout counts live engines and
// lists stale ones apart (`stale`, `stale_behind` of /v1/fleet/bundles), so a
// stale engine on an old revision shows as behind. A bundle never built
// (`latest_revision: null`) has no build to be behind.
import { api } from '../api.js';
import { html, ErrorBox, link, PageTitle, Time, usePoll } from '../ui.js';

async function loadFleet() {
  const [engines, bundles] = await Promise.all([api('/v1/fleet'), api('/v1/fleet/bundles')]);
  return { engines: engines.result ?? [], bundles: bundles.result ?? [] };
}

const seconds = (s) => (s === undefined || s === null ? '—' : s < 120 ? `${s.toFixed(1)} s` : `${(s / 60).toFixed(1)} min`);

/** Plugin states: "all OK", or a badge per plugin that is not OK (its message as a tooltip). */
function PluginStates({ plugins }) {
  const entries = Object.entries(plugins ?? {});
  const notOk = entries.filter(([, p]) => p.state !== 'OK');
  if (entries.length === 0) return html`<span class="muted">—</span>`;
  if (notOk.length === 0) return html`<span class="muted">all ${entries.length} OK</span>`;
  return notOk.map(([name, p]) => html`<span class=${`badge ${p.state === 'ERROR' ? 'bad' : 'warn'}`} title=${p.message ?? ''}>${name} ${p.state}</span> `);
}

export function FleetPage() {
  const { data, error } = usePoll(loadFleet);
  if (!data) return html`<${PageTitle} title="Fleet" /><${ErrorBox} error=${error} />${!error && html`<p>Loading…</p>`}`;
  const latest = Object.fromEntries(data.bundles.map((b) => [b.bundle, b.latest_revision]));
  const names = [...new Set([...data.bundles.map((b) => b.bundle), ...data.engines.flatMap((e) => Object.keys(e.bundles ?? {}))])].sort();
  // latest[n] is null (never built) or undefined (not a control-plane bundle): nothing to be behind.
  const isOld = (n, b) => latest[n] != null && b.active_revision !== latest[n];
  const behind = (e) => names.some((n) => e.bundles?.[n] && isOld(n, e.bundles[n]));

  return html`<${PageTitle} title="Fleet" />
    <${ErrorBox} error=${error} />
    <section aria-labelledby="fleet-bundles">
      <h2 id="fleet-bundles">Bundles</h2>
      <div class="table-wrap">
        <table aria-label="Bundle rollout">
          <thead><tr><th>Bundle</th><th>Latest build</th><th>Serving it</th><th>Behind</th><th class="hide-narrow">Build → first engine</th></tr></thead>
          <tbody>
            ${data.bundles.length === 0 && html`<tr><td colspan="5" class="muted">No successful build yet.</td></tr>`}
            ${data.bundles.map(
              (b) => {
                const built = b.latest_revision != null;
                const stale = b.stale ?? [];
                const lagging = [...(b.behind ?? []), ...(b.stale_behind ?? [])];
                return html`<tr data-fleet-bundle=${b.bundle} class=${lagging.length ? 'behind' : ''}>
                <td><a href=${link('bundles', b.bundle)}>${b.bundle}</a></td>
                <td>${built ? html`<code>${b.latest_revision || '""'}</code> <span class="muted small"><${Time} iso=${b.built_at} /></span>` : html`<span class="badge none">no build</span>`}</td>
                <td>${built ? html`<span class="serving">${b.serving_latest} of ${b.engines}</span>` : html`<span class="serving muted">${b.engines} live</span>`}${stale.length > 0 && html` <span class="muted small stale-count">+ ${stale.length} stale</span>`}</td>
                <td class="behind-list">${!built
                  ? html`<span class="muted">—</span>`
                  : lagging.length === 0
                    ? html`<span class="muted">none</span>`
                    : [
                        ...(b.behind ?? []).map((id) => html`<span class="label">${id}</span> `),
                        ...(b.stale_behind ?? []).map((id) => html`<span class="label" data-stale-behind=${id}>${id} <span class="badge bad">stale</span></span> `),
                      ]}</td>
                <td class="hide-narrow">${seconds(b.seconds_to_first_serve)}</td>
              </tr>`;
              },
            )}
          </tbody>
        </table>
      </div>
    </section>
    <section aria-labelledby="fleet-engines">
      <h2 id="fleet-engines">Engines</h2>
      <div class="table-wrap">
        <table aria-label="Engines">
          <thead><tr><th>Engine</th><th>Last seen</th>${names.map((n) => html`<th>${n}</th>`)}<th class="hide-narrow">Plugins</th><th class="hide-narrow">Errors</th></tr></thead>
          <tbody>
            ${data.engines.length === 0 && html`<tr><td colspan=${names.length + 4} class="muted">No engine has reported status yet. Point an engine's <code>status.service</code> at this control plane.</td></tr>`}
            ${data.engines.map(
              (e) => html`<tr data-engine=${e.id} class=${behind(e) ? 'behind' : ''}>
                <td><code>${e.id}</code>${e.labels?.version && html` <span class="muted small">v${e.labels.version}</span>`}
                  <div>${Object.entries(e.labels ?? {}).filter(([k]) => k !== 'id' && k !== 'version').map(([k, v]) => html`<span class="label">${k}=${v}</span>`)}</div>
                  ${behind(e) && html` <span class="badge warn">behind</span>`}</td>
                <td><${Time} iso=${e.last_seen} />${e.stale && html` <span class="badge bad">stale</span>`}</td>
                ${names.map((n) => {
                  const b = e.bundles?.[n];
                  if (!b) return html`<td class="muted">—</td>`;
                  const old = isOld(n, b);
                  return html`<td data-bundle=${n} class=${old ? 'old-revision' : 'current-revision'}>
                    <code>${b.active_revision || '""'}</code>${old && html` <span class="badge warn" title=${`latest is ${latest[n] || '""'}`}>old</span>`}
                    ${b.code && html` <span class="badge bad" title=${b.message ?? ''}>${b.code}</span>`}</td>`;
                })}
                <td class="hide-narrow small"><${PluginStates} plugins=${e.plugins} /></td>
                <td class="hide-narrow small">${(e.errors ?? []).join('; ') || html`<span class="muted">none</span>`}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </section>`;
}
