// Minimal types for the parts of autocannon the server benchmark uses.
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    connections?: number;
    pipelining?: number;
    duration?: number;
    workers?: number;
  }
  interface Result {
    requests: { average: number };
    latency: { p50: number; p99: number; average: number };
    non2xx: number;
    errors: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
