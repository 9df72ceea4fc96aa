// The parts of autocannon's programmatic API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    non2xx: number;
    errors: number;
  }
  interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    /**
     * Each request may be rewritten before it is sent (e.g. another user's session each time); in
     * workers mode `setupRequest` is the path of a CommonJS module exporting the function.
     */
    requests?: Array<RequestParams & { setupRequest?: string | ((request: RequestParams) => RequestParams) }>;
    headers?: Record<string, string>;
    connections?: number;
    duration?: number;
    workers?: number;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
