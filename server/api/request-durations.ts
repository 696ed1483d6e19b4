// http_request_duration_seconds{code,handler,method}: OPA's request-duration
// histogram, kept as plain bucket counters so that observing a request costs an
// array walk and an increment (prom-client's Histogram.observe hashes its labels on
// every call, a measurable share of a decision request). It registers into the
// prom-client Registry as a custom metric, so GET /metrics renders it with the
// process metrics in the usual text format.
import type { Registry } from 'prom-client';

/** The counters of one label set (code, handler, method). */
interface Series {
  labels: { code: string; handler: string; method: string };
  /** Non-cumulative counts per bucket; the last slot is the +Inf overflow. */
  counts: number[];
  sum: number;
  count: number;
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

export class RequestDurations {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'A histogram of duration for requests.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly buckets: number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** Count one request that took `seconds`. */
  observe(code: number, handler: string, method: string, seconds: number): void {
    const key = code + ' ' + handler + ' ' + method;
    let s = this.series.get(key);
    if (s === undefined) {
      s = { labels: { code: String(code), handler, method: method.toLowerCase() }, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const buckets = this.buckets;
    let i = 0;
    while (i < buckets.length && seconds > buckets[i]!) i++;
    s.counts[i]!++;
    s.sum += seconds;
    s.count++;
  }

  /** prom-client's metric interface: the values to render, buckets cumulative. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue[] }> {
    const values: MetricValue[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ labels: { ...s.labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    this.series.clear();
  }
}
