// The status document's `metrics.prometheus`: the engine registry gathered into
// OPA's JSON metric families, and `status.prometheus: true` registering OPA's
// status collectors (opa_info, plugin_status_gauge, bundle_*) on that registry,
// seen in the posted status, GET /v1/status and GET /metrics.
import { afterEach, describe, expect, it } from 'vitest';
import { Counter, Histogram, Registry } from 'prom-client';
import { writeBundle } from '../../runtime/bundles/index.js';
import { fromJS } from '../../runtime/value/index.js';
import { buildServer } from '../../server/index.js';
import { loadConfig } from '../../server/config/config.js';
import { startPlugins } from '../../server/plugins/index.js';
import { gatherFamilies } from '../../server/plugins/status-metrics.js';
import { FakeHost, startServer, waitFor } from './helpers.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

type Family = { name: string; help: string; type: string; metric: Record<string, unknown>[] };

describe('metric families as OPA marshals them', () => {
  it('uses jsonpb shapes: upper-case types, sorted labels, string counts, no +Inf bucket, no empty families', async () => {
    const registry = new Registry();
    const c = new Counter({ name: 'c_total', help: 'A counter.', labelNames: ['z', 'a'], registers: [registry] });
    c.inc({ z: '2', a: 'x' }, 3);
    c.inc({ z: '1', a: 'x' });
    new Counter({ name: 'empty_total', help: 'Never set.', labelNames: ['l'], registers: [registry] });
    const h = new Histogram({ name: 'h_seconds', help: 'A histogram.', buckets: [0.1, 1], registers: [registry] });
    h.observe(0.05);
    h.observe(5);
    const fams = (await gatherFamilies(registry)) as Record<string, Family>;
    expect(Object.keys(fams)).toEqual(['c_total', 'h_seconds']);
    expect(fams.c_total).toEqual({
      name: 'c_total',
      help: 'A counter.',
      type: 'COUNTER',
      metric: [
        { label: [{ name: 'a', value: 'x' }, { name: 'z', value: '1' }], counter: { value: 1 } },
        { label: [{ name: 'a', value: 'x' }, { name: 'z', value: '2' }], counter: { value: 3 } },
      ],
    });
    expect(fams.h_seconds!.metric).toEqual([
      {
        histogram: {
          sampleCount: '2',
          sampleSum: 5.05,
          bucket: [
            { cumulativeCount: '1', upperBound: 0.1 },
            { cumulativeCount: '1', upperBound: 1 },
          ],
        },
      },
    ]);
  });
});

describe('status.prometheus', () => {
  it('registers the status collectors and reports them in the posted status', async () => {
    const docs: { bundles?: Record<string, { active_revision?: string }>; metrics?: { prometheus?: Record<string, Family> } }[] = [];
    const body = await writeBundle({ manifest: { revision: 'r1', roots: ['x'] }, modules: [], data: fromJS({ x: 1 }) });
    const server = await startServer((req, b, res) => {
      if (req.url === '/status') {
        docs.push(JSON.parse(b.toString('utf8')) as (typeof docs)[number]);
        return void res.end();
      }
      res.writeHead(200, { etag: '"r1"' });
      res.end(body);
    });
    cleanups.push(() => server.close());
    const registry = new Registry();
    const p = await startPlugins(
      {
        services: { s: { url: server.url } },
        bundles: { b: { polling: { min_delay_seconds: 10, max_delay_seconds: 20 } } },
        status: { service: 's', prometheus: true, prometheus_config: { collectors: { bundle_loading_duration_ns: { buckets: [1, 1e12] } } } },
      },
      new FakeHost(),
      { prometheus: registry, metrics: () => ({ counter_decision_logs_dropped: 2 }) },
    );
    cleanups.push(() => p.stop());
    // Like OPA, each report is gathered before the collectors are updated from it, so they show up from the next report on.
    await waitFor(() => docs.some((d) => d.metrics?.prometheus?.plugin_status_gauge !== undefined), 5000, 'plugin_status_gauge in a status report');
    const posted = docs.find((d) => d.metrics?.prometheus?.plugin_status_gauge !== undefined)!.metrics!.prometheus!;
    expect(posted.opa_info).toEqual({ name: 'opa_info', help: 'Information about the OPA environment.', type: 'GAUGE', metric: [{ label: [{ name: 'version', value: '0.0.0' }], gauge: { value: 1 } }] });
    expect(posted.plugin_status_gauge!.metric).toContainEqual({ label: [{ name: 'name', value: 'status' }, { name: 'status', value: 'OK' }], gauge: { value: 1 } });
    expect((posted as Record<string, unknown>).counter_decision_logs_dropped).toBe(2);
    expect(Object.keys(posted)).toEqual([...Object.keys(posted)].sort());

    await waitFor(() => docs.some((d) => d.bundles?.b?.active_revision === 'r1'), 5000, 'bundle status reported');
    const prom = (await p.status()).metrics!.prometheus as Record<string, Family>;
    expect(prom.bundle_loaded_counter!.metric[0]).toMatchObject({ label: [{ name: 'name', value: 'b' }], counter: { value: expect.any(Number) } });
    expect(prom.plugin_status_gauge!.metric).toContainEqual({ label: [{ name: 'name', value: 'bundle' }, { name: 'status', value: 'OK' }], gauge: { value: 1 } });
    const buckets = prom.bundle_loading_duration_ns!.metric[0] as { label: unknown; histogram: { bucket: unknown[] } };
    expect(buckets.histogram.bucket.map((x) => (x as { upperBound: number }).upperBound)).toEqual([1, 1e12]);
    expect(await registry.metrics()).toContain('last_success_bundle_activation{name="b",active_revision="r1"}');

    await p.stop();
    expect(registry.getSingleMetric('opa_info')).toBeUndefined();
  });

  it('allows prometheus-only status config, and GET /v1/status shows the engine metrics', async () => {
    const config = loadConfig({ text: JSON.stringify({ status: { prometheus: true } }), version: 'test' });
    const app = await buildServer({ config });
    const plugins = await startPlugins(config.document, app.regent.host, { prometheus: app.regent.prometheus });
    app.regent.attachPlugins(plugins);
    cleanups.push(() => app.close());
    await app.inject({ method: 'GET', url: '/v1/data' });
    const res = await app.inject({ method: 'GET', url: '/v1/status' });
    expect(res.statusCode).toBe(200);
    const prom = (JSON.parse(res.body) as { result: { metrics: { prometheus: Record<string, Family> } } }).result.metrics.prometheus;
    expect(prom.http_request_duration_seconds).toMatchObject({ type: 'HISTOGRAM', metric: [{ label: [{ name: 'code', value: '200' }, { name: 'handler', value: 'v1/data' }, { name: 'method', value: 'get' }] }] });
    expect(prom.opa_info!.metric[0]).toMatchObject({ gauge: { value: 1 } });
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('plugin_status_gauge{name="status",status="OK"} 1');
  });
});
