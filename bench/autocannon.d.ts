/** The part of autocannon's API that bench/http.ts uses (the package ships no types). */
declare module 'autocannon' {
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
  }
  interface Histogram {
    average: number; mean: number; stddev: number; min: number; max: number;
    p50: number; p90: number; p97_5: number; p99: number; p99_9: number;
  }
  interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram & { totalCount: number };
    throughput: Histogram & { total: number };
    errors: number; timeouts: number; non2xx: number; resets: number; mismatches: number;
    '1xx': number; '2xx': number; '3xx': number; '4xx': number; '5xx': number;
    duration: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    overallRate?: number;
    timeout?: number;
    requests?: Request[];
    headers?: Record<string, string>;
  }
  interface Instance extends PromiseLike<Result> {
    on(event: string, listener: (...args: unknown[]) => void): Instance;
    stop(): void;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
