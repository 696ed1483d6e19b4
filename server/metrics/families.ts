// Labelled counters and histograms for Prometheus metrics, shared by the engine
// server (api/metrics.ts) and the control plane (control-plane/metrics.ts). They register into a prom-client Registry as custom metrics, so
// the Registry renders the text format, but recording is cheaper than with
// prom-client's own classes (which hash the label object on every call): a
// caller resolves a child for its label values once (`child(...)`, cached) and
// keeps it, and recording is then an increment, or a bucket walk for histograms.
// The rendering follows the Go client that the reference uses: label names in
// sorted order with `le` last, `le` written like Go's %g (`1e-06`, `+Inf`), and
// series that were never recorded (count 0) left out, like Go series that
// WithLabelValues has not created yet.
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}

interface Rendered {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: Sample[];
}

/** A number as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it (for `le`). */
export function goFloat(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0 || !Number.isFinite(v)) return String(v);
  // Shortest digits; %e when the exponent is < -4 or >= 6 (Go's rule for precision -1).
  const [mantissa, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp >= -4 && exp < 6) return String(v);
  const digits = String(Math.abs(exp));
  return `${mantissa}e${exp < 0 ? '-' : '+'}${digits.length < 2 ? '0' + digits : digits}`;
}

/** Shared part of both kinds: registration, label handling, the child cache. */
abstract class Family<C> {
  readonly aggregator = 'sum';
  private readonly children = new Map<string, { labels: Labels; child: C }>();
  /** Positions of the label names in sorted order (the rendering order). */
  private readonly order: number[];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    this.order = labelNames.map((_, i) => i).sort((a, b) => (labelNames[a]! < labelNames[b]! ? -1 : 1));
    registry.registerMetric(this as never);
  }

  /** The child of these label values (given in `labelNames` order); keep it to record cheaply. */
  child(...values: string[]): C {
    const key = values.join('\u0000');
    let entry = this.children.get(key);
    if (entry === undefined) {
      const labels: Labels = {};
      for (const i of this.order) labels[this.labelNames[i]!] = values[i] ?? '';
      entry = { labels, child: this.create() };
      this.children.set(key, entry);
    }
    return entry.child;
  }

  protected abstract create(): C;
  protected abstract samples(labels: Labels, child: C, out: Sample[]): void;

  /** prom-client's metric interface. */
  get(): Promise<Rendered> {
    const values: Sample[] = [];
    for (const { labels, child } of this.children.values()) this.samples(labels, child, values);
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    this.children.clear();
  }
}

export class CounterChild {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

export class CounterFamily extends Family<CounterChild> {
  constructor(name: string, help: string, labelNames: readonly string[], registry: Registry) {
    super(name, help, 'counter', labelNames, registry);
  }

  protected create(): CounterChild {
    return new CounterChild();
  }

  protected samples(labels: Labels, c: CounterChild, out: Sample[]): void {
    if (c.value > 0) out.push({ labels, value: c.value });
  }
}

export class HistogramChild {
  /** Non-cumulative counts per bucket; the last slot counts values above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(seconds: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

export class HistogramFamily extends Family<HistogramChild> {
  private readonly bounds: number[];
  private readonly les: string[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[], registry: Registry) {
    super(name, help, 'histogram', labelNames, registry);
    this.bounds = [...buckets];
    this.les = this.bounds.map(goFloat);
  }

  protected create(): HistogramChild {
    return new HistogramChild(this.bounds);
  }

  protected samples(labels: Labels, h: HistogramChild, out: Sample[]): void {
    if (h.count === 0) return;
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    for (let i = 0; i < this.les.length; i++) {
      cumulative += h.counts[i]!;
      out.push({ labels: { ...labels, le: this.les[i]! }, value: cumulative, metricName: bucket });
    }
    out.push({ labels: { ...labels, le: '+Inf' }, value: h.count, metricName: bucket });
    out.push({ labels, value: h.sum, metricName: `${this.name}_sum` });
    out.push({ labels, value: h.count, metricName: `${this.name}_count` });
  }
}

/** Render a registry, leaving out families without samples (Go's Gather skips them too). */
export async function renderRegistry(registry: Registry): Promise<string> {
  // prom-client joins families with a blank line; label values never hold a raw newline.
  const blocks = (await registry.metrics()).replace(/\n$/, '').split('\n\n');
  const kept = blocks.filter((b) => b.split('\n').length > 2);
  return kept.length === 0 ? '' : kept.join('\n') + '\n';
}
