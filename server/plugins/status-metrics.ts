// Prometheus for the status plugin (OPA's v1/plugins/status/metrics.go and
// internal/prometheus). Two parts:
// - gatherFamilies(registry): the engine's prom-client Registry as the JSON
//   metric families OPA puts under `metrics.prometheus` in the status document
//   (Go's Gather marshalled with jsonpb: `{name, help, type: "COUNTER", metric:
//   [{label: [{name, value}], counter: {value}}]}`, 64-bit counts as strings,
//   label names sorted, metrics sorted by label values, empty families left out).
// - StatusCollectors: with `status.prometheus: true`, OPA's collectors
//   (opa_info, plugin_status_gauge, bundle_loaded_counter, …,
//   bundle_loading_duration_ns) registered on that registry and updated from
//   every status document the plugin reports.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { BundleStatus, PluginState } from './contract.js';
import { messageOf, type PluginLogger } from './util.js';

/** prometheus.ExponentialBuckets(1000, 2, 20): OPA's default bundle_loading_duration_ns buckets. */
export const DEFAULT_BUNDLE_LOAD_BUCKETS = Array.from({ length: 20 }, (_, i) => 1000 * 2 ** i);

/** Go's time.Time{}.UnixNano() (the int64 overflow OPA reports for never-set times). */
const GO_ZERO_TIME_UNIX_NANO = -6795364578871345152;
const ZERO_TIME = '0001-01-01T00:00:00Z';
/** The bundle metrics OPA observes in bundle_loading_duration_ns, by stage. */
const LOAD_STAGES = new Set(['timer_bundle_request_ns', 'timer_rego_data_parse_ns', 'timer_rego_module_parse_ns', 'timer_rego_module_compile_ns', 'timer_rego_load_bundles_ns']);

type Labels = Record<string, string | number>;
interface Sample {
  value: number;
  labels: Labels;
  metricName?: string;
}
interface JSONLabel {
  name: string;
  value: string;
}

/** A float as protojson writes it (non-finite values as strings). */
const float = (v: number): number | string => (Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : v);

function labelList(labels: Labels, skip?: string): JSONLabel[] {
  return Object.keys(labels)
    .filter((k) => k !== skip)
    .sort()
    .map((name) => ({ name, value: String(labels[name]) }));
}

function compareLabels(a: { label?: JSONLabel[] }, b: { label?: JSONLabel[] }): number {
  const x = a.label ?? [];
  const y = b.label ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i]!.value !== y[i]!.value) return x[i]!.value < y[i]!.value ? -1 : 1;
  }
  return x.length - y.length;
}

function withLabels(labels: JSONLabel[], body: Record<string, unknown>): Record<string, unknown> {
  return labels.length > 0 ? { label: labels, ...body } : body;
}

/** Histogram or summary samples grouped per label set (without `le` / `quantile`). */
function grouped(name: string, values: Sample[], kind: 'histogram' | 'summary'): Record<string, unknown>[] {
  const by = new Map<string, { labels: JSONLabel[]; count: number; sum: number; points: Record<string, unknown>[] }>();
  const part = kind === 'histogram' ? 'le' : 'quantile';
  for (const s of values) {
    const labels = labelList(s.labels, part);
    const key = JSON.stringify(labels);
    let g = by.get(key);
    if (!g) by.set(key, (g = { labels, count: 0, sum: 0, points: [] }));
    if (s.metricName === `${name}_sum`) g.sum = s.value;
    else if (s.metricName === `${name}_count`) g.count = s.value;
    else if (kind === 'histogram') {
      const le = String(s.labels.le);
      if (le !== '+Inf') g.points.push({ cumulativeCount: String(s.value), upperBound: float(Number(le)) });
    } else g.points.push({ quantile: float(Number(s.labels.quantile)), value: float(s.value) });
  }
  return [...by.values()].map((g) =>
    withLabels(g.labels, { [kind]: { sampleCount: String(g.count), sampleSum: float(g.sum), [kind === 'histogram' ? 'bucket' : 'quantile']: g.points } }),
  );
}

/** The registry's metric families in jsonpb form, keyed (sorted) by family name. */
export async function gatherFamilies(registry: Registry): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const families = (await registry.getMetricsAsJSON()) as unknown as { name: string; help: string; type: string; values: Sample[] }[];
  for (const f of [...families].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const type = String(f.type);
    let metric: Record<string, unknown>[];
    if (type === 'histogram' || type === 'summary') metric = grouped(f.name, f.values, type);
    else metric = f.values.map((s) => withLabels(labelList(s.labels), { [type === 'gauge' || type === 'counter' ? type : 'untyped']: { value: float(s.value) } }));
    if (metric.length === 0) continue;
    metric.sort(compareLabels);
    out[f.name] = { name: f.name, help: f.help, type: type.toUpperCase(), metric };
  }
  return out;
}

/** Unix nanoseconds of an RFC 3339 status time (Go's overflowed value for the zero time). */
function unixNano(t: string | undefined): number {
  if (t === undefined || t === ZERO_TIME) return GO_ZERO_TIME_UNIX_NANO;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? GO_ZERO_TIME_UNIX_NANO : ms * 1e6;
}

/** OPA's status collectors, registered on the engine's registry while the status plugin runs. */
export class StatusCollectors {
  private readonly opaInfo = new Gauge({ name: 'opa_info', help: 'Information about the OPA environment.', labelNames: ['version'], registers: [] });
  private readonly pluginStatus = new Gauge({ name: 'plugin_status_gauge', help: 'Gauge for the plugin by status.', labelNames: ['name', 'status'], registers: [] });
  private readonly loaded = new Counter({ name: 'bundle_loaded_counter', help: 'Counter for the bundle loaded.', labelNames: ['name'], registers: [] });
  private readonly failLoad = new Counter({ name: 'bundle_failed_load_counter', help: 'Counter for the failed bundle load.', labelNames: ['name', 'code', 'message'], registers: [] });
  private readonly lastRequest = new Gauge({ name: 'last_bundle_request', help: 'Gauge for the last bundle request.', labelNames: ['name'], registers: [] });
  private readonly lastActivation = new Gauge({ name: 'last_success_bundle_activation', help: 'Gauge for the last success bundle activation.', labelNames: ['name', 'active_revision'], registers: [] });
  private readonly lastDownload = new Gauge({ name: 'last_success_bundle_download', help: 'Gauge for the last success bundle download.', labelNames: ['name'], registers: [] });
  private readonly lastSuccessRequest = new Gauge({ name: 'last_success_bundle_request', help: 'Gauge for the last success bundle request.', labelNames: ['name'], registers: [] });
  private readonly loadDuration: Histogram<string>;
  private readonly registered: string[] = [];

  constructor(
    private readonly registry: Registry,
    version: string,
    buckets: number[] = DEFAULT_BUNDLE_LOAD_BUCKETS,
  ) {
    this.loadDuration = new Histogram({ name: 'bundle_loading_duration_ns', help: 'Histogram for the bundle loading duration by stage.', labelNames: ['name', 'stage'], buckets, registers: [] });
    this.opaInfo.set({ version }, 1);
  }

  /** Register every collector (a name already taken is logged and skipped, as OPA does). */
  register(logger: PluginLogger): void {
    const all = [this.opaInfo, this.pluginStatus, this.loaded, this.failLoad, this.lastRequest, this.lastActivation, this.lastDownload, this.lastSuccessRequest, this.loadDuration];
    for (const m of all) {
      const name = (m as unknown as { name: string }).name;
      try {
        this.registry.registerMetric(m as never);
        this.registered.push(name);
      } catch (e) {
        logger.error({ plugin: 'status', err: messageOf(e) }, `Status metric failed to register on prometheus :${messageOf(e)}.`);
      }
    }
  }

  unregister(): void {
    for (const name of this.registered.splice(0)) this.registry.removeSingleMetric(name);
  }

  /** OPA's updatePrometheusMetrics, run on every status report. */
  update(plugins: Record<string, { state: PluginState }> | undefined, bundles: Record<string, BundleStatus> | undefined): void {
    this.pluginStatus.reset();
    for (const [name, p] of Object.entries(plugins ?? {})) this.pluginStatus.set({ name, status: p.state }, 1);
    this.lastActivation.reset();
    for (const b of Object.values(bundles ?? {})) {
      const activated = b.last_successful_activation !== undefined && b.last_successful_activation !== ZERO_TIME;
      if (!b.code && activated) this.loaded.inc({ name: b.name });
      else this.failLoad.inc({ name: b.name, code: b.code ?? '', message: b.message ?? '' });
      this.lastActivation.set({ name: b.name, active_revision: b.active_revision ?? '' }, unixNano(b.last_successful_activation));
      this.lastDownload.set({ name: b.name }, unixNano(b.last_successful_download));
      this.lastSuccessRequest.set({ name: b.name }, unixNano(b.last_successful_request));
      this.lastRequest.set({ name: b.name }, unixNano(b.last_request));
      for (const [stage, v] of Object.entries(b.metrics ?? {})) {
        if (LOAD_STAGES.has(stage) && typeof v === 'number') this.loadDuration.observe({ name: b.name, stage }, v);
      }
    }
  }
}
