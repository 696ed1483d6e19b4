// RequestDurations: OPA's http_request_duration_seconds histogram as plain
// counters, rendered by prom-client's Registry in the text format.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestDurations } from '../../../server/api/request-durations.js';

describe('RequestDurations', () => {
  it('renders cumulative buckets, sum and count per label set', async () => {
    const registry = new Registry();
    const d = new RequestDurations([0.001, 0.01, 0.1], registry);
    d.observe(200, 'v1/data', 'POST', 0.0005);
    d.observe(200, 'v1/data', 'POST', 0.005);
    d.observe(200, 'v1/data', 'POST', 0.5);
    d.observe(404, 'catchall', 'GET', 0.01);
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

  it('starts empty and resets', async () => {
    const registry = new Registry();
    const d = new RequestDurations([1], registry);
    d.observe(200, 'health', 'GET', 0.1);
    d.reset();
    expect(await registry.metrics()).not.toContain('http_request_duration_seconds_bucket');
  });
});
