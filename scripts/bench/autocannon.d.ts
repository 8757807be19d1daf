/** The part of autocannon 9's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  type Headers = Record<string, string>

  export type RequestSpec = {
    method?: string
    path?: string
    headers?: Headers
    body?: string
    /** Called as each request is built; what it returns is sent. */
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec | null
  }

  export type Histogram = {
    average: number
    stddev: number
    min: number
    max: number
    p50: number
    p90: number
    p99: number
    total: number
    sent: number
  }

  export type Result = {
    /** Seconds, to two decimals. */
    duration: number
    requests: Histogram
    /** Milliseconds. */
    latency: Histogram
    errors: number
    timeouts: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
  }

  export type Options = {
    url: string
    connections?: number
    /** Seconds. */
    duration?: number
    /** Seconds to wait for an answer. */
    timeout?: number
    requests?: RequestSpec[]
  }

  export type Instance = PromiseLike<Result> & { stop: () => void }

  export default function autocannon(options: Options): Instance
}
