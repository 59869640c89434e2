/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module "autocannon" {
  namespace autocannon {
    interface Request {
      readonly method?: string
      readonly path?: string
      readonly headers?: Record<string, string>
      readonly body?: string
      readonly setupRequest?: (request: Request, context: Record<string, unknown>) => Request
    }
    interface Options {
      readonly url: string
      readonly connections?: number
      readonly duration?: number
      readonly pipelining?: number
      readonly timeout?: number
      readonly headers?: Record<string, string>
      readonly requests?: ReadonlyArray<Request>
    }
    interface Histogram {
      readonly average: number
      readonly mean: number
      readonly p50: number
      readonly p99: number
      readonly max: number
      readonly total: number
    }
    interface Result {
      readonly requests: Histogram
      readonly latency: Histogram
      readonly errors: number
      readonly timeouts: number
      readonly non2xx: number
      readonly duration: number
      readonly statusCodeStats: Record<string, { readonly count: number }>
    }
    interface Instance extends PromiseLike<Result> {
      on(event: "response", listener: (client: unknown, statusCode: number, bytes: number, responseTime: number) => void): this
    }
  }
  function autocannon(options: autocannon.Options): autocannon.Instance
  export default autocannon
}
