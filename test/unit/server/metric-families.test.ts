// server/metrics/families.ts: labelled Prometheus histograms and counters kept as
// plain counters, rendered by prom-client's Registry in the Go client's format.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterFamily, HistogramFamily, goFloat, renderRegistry } from '../../../server/metrics/families.js';

describe('HistogramFamily', () => {
  it('renders cumulative buckets, sum and count per label set', async () => {
    const registry = new Registry();
    const h = new HistogramFamily('http_request_duration_seconds', 'A histogram of duration for requests.', ['code', 'handler', 'method'], [0.001, 0.01, 0.1], registry);
    const data = h.child('200', 'v1/data', 'post');
    data.observe(0.0005);
    data.observe(0.005);
    data.observe(0.5);
    h.child('404', 'catchall', 'get').observe(0.01);
    const text = await registry.metrics();
    const line = (labels: string): string | undefined => text.split('\n').find((l) => l.startsWith(`http_request_duration_seconds${labels}`));
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(line('_bucket{code="200",handler="v1/data",method="post",le="0.001"}')).toMatch(/ 1$/);
    expect(line('_bucket{code="200",handler="v1/data",method="post",le="0.01"}')).toMatch(/ 2$/);
    expect(line('_bucket{code="200",handler="v1/data",method="post",le="0.1"}')).toMatch(/ 2$/);
    expect(line('_bucket{code="200",handler="v1/data",method="post",le="+Inf"}')).toMatch(/ 3$/);
    expect(line('_count{code="200",handler="v1/data",method="post"}')).toMatch(/ 3$/);
    expect(Number(line('_sum{code="200",handler="v1/data",method="post"}')!.split(' ')[1])).toBeCloseTo(0.5055, 6);
    // A value on a bucket's upper bound counts in that bucket (le is inclusive).
    expect(line('_bucket{code="404",handler="catchall",method="get",le="0.01"}')).toMatch(/ 1$/);
    expect(line('_bucket{code="404",handler="catchall",method="get",le="0.001"}')).toMatch(/ 0$/);
  });

  it('returns the same child for the same label values', () => {
    const h = new HistogramFamily('x_seconds', 'x', ['a'], [1], new Registry());
    expect(h.child('1')).toBe(h.child('1'));
    expect(h.child('1')).not.toBe(h.child('2'));
  });
});

describe('rendering', () => {
  it('writes le like Go and leaves out families without samples', async () => {
    expect([1e-6, 5e-6, 0.0001, 0.5, 1, 1e6].map(goFloat)).toEqual(['1e-06', '5e-06', '0.0001', '0.5', '1', '1e+06']);
    const registry = new Registry();
    new CounterFamily('unused_total', 'never incremented', ['x'], registry);
    const used = new CounterFamily('used_total', 'incremented', ['b', 'a'], registry);
    used.child('B', 'A').inc();
    expect(await renderRegistry(registry)).toBe('# HELP used_total incremented\n# TYPE used_total counter\nused_total{a="A",b="B"} 1\n');
  });
});
