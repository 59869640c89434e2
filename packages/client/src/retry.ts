/**
 * The client's retries (docs/idempotency.md "The client's retry policy"), on by default as in the
 * platform's generated SDKs: `makeClient({ apiKey })` retries twice; `retry: false` turns it off.
 *
 * An attempt that fails in transport, takes longer than `timeout`, or answers 408, 409, 429 or a
 * 5xx is tried again after a growing, jittered delay (at least the server's `Retry-After`, up to a
 * minute); an answer carrying `x-should-retry: true` or `false` decides for itself. Every POST gets
 * an `Idempotency-Key` once, before its first attempt, so all its attempts carry the same key and
 * the server performs it once. GET, HEAD, OPTIONS and PUT are retried as they are. PATCH and
 * DELETE, which the server does not deduplicate, are retried only on the answers that say the
 * request was not performed (408, 409, 429). When the retries run out, the last answer or error is
 * the result.
 */
import { HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import type { HttpClientResponse } from "@effect/platform"
import { Duration, Effect, Either, Random } from "effect"

export interface RetryPolicy {
  /** Retries after the first attempt (default 2; 0: none). */
  readonly times?: number | undefined
  /** Delay before the first retry; it doubles on each later one, with ±20% jitter, up to 8 seconds (default 500 millis). */
  readonly delay?: Duration.DurationInput | undefined
  /** Longest an attempt may wait for its response; then it counts as a transport failure (default 60 seconds). */
  readonly timeout?: Duration.DurationInput | undefined
}

/** What `makeClient` uses when given no `retry`: 2 retries, 500 millis first, 60 seconds an attempt. */
export const defaultRetryPolicy = {
  times: 2,
  delay: Duration.millis(500),
  timeout: Duration.seconds(60)
} as const satisfies RetryPolicy

/** The request header that makes a POST safe to retry. */
export const IdempotencyKeyHeader = "idempotency-key"

const longestRetryAfter = Duration.minutes(1)
const longestBackoff = Duration.seconds(8)

/** Methods whose attempts may be repeated after any failure (POST: with its idempotency key). */
const replayableMethods = new Set(["GET", "HEAD", "OPTIONS", "PUT", "POST"])

/** Answers that say the request was not performed: any method may try again. */
const notPerformed = new Set([408, 409, 429])

type Outcome = Either.Either<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>

/** Whether an attempt's outcome is worth another attempt of the same request. */
export const isRetryable = (request: HttpClientRequest.HttpClientRequest, outcome: Outcome): boolean => {
  const replayable = replayableMethods.has(request.method)
  if (Either.isLeft(outcome)) {
    return replayable && outcome.left._tag === "RequestError" && outcome.left.reason === "Transport"
  }
  const { headers, status } = outcome.right
  const shouldRetry = headers["x-should-retry"]
  if (shouldRetry === "true") return true
  if (shouldRetry === "false") return false
  if (notPerformed.has(status)) return true
  return replayable && status >= 500 && status <= 599
}

/**
 * How long the server asked to wait, when it did: `retry-after-ms` (milliseconds), else
 * `Retry-After` in seconds or as an HTTP date; at most a minute.
 */
const retryAfter = (outcome: Outcome): Duration.Duration => {
  if (Either.isLeft(outcome)) return Duration.zero
  const { headers } = outcome.right
  const millis = Number(headers["retry-after-ms"])
  const header = headers["retry-after"]
  const asked = Number.isFinite(millis) && millis > 0
    ? millis
    : header === undefined
    ? 0
    : Number.isFinite(Number(header))
    ? Number(header) * 1000
    : Date.parse(header) - Date.now()
  return Number.isFinite(asked) && asked > 0 ? Duration.min(Duration.millis(asked), longestRetryAfter) : Duration.zero
}

/** Adds an `Idempotency-Key` to a POST that has none; the same request object is then retried. */
const withIdempotencyKey = (request: HttpClientRequest.HttpClientRequest) =>
  request.method !== "POST" || request.headers[IdempotencyKeyHeader] !== undefined
    ? Effect.succeed(request)
    : Effect.sync(() => HttpClientRequest.setHeader(request, IdempotencyKeyHeader, globalThis.crypto.randomUUID()))

/** Wraps an `HttpClient` with the retry policy. */
export const withRetries = (policy: RetryPolicy = {}) => (client: HttpClient.HttpClient): HttpClient.HttpClient => {
  const times = Math.max(0, policy.times ?? defaultRetryPolicy.times)
  const delay = Duration.decode(policy.delay ?? defaultRetryPolicy.delay)
  const timeout = Duration.decode(policy.timeout ?? defaultRetryPolicy.timeout)

  const attempt = (request: HttpClientRequest.HttpClientRequest) =>
    Effect.timeoutFail(client.execute(request), {
      duration: timeout,
      onTimeout: () =>
        new HttpClientError.RequestError({
          request,
          reason: "Transport",
          description: `no response within ${Duration.format(timeout)}`
        })
    })

  const run = (
    request: HttpClientRequest.HttpClientRequest,
    retried: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
    Effect.flatMap(Effect.either(attempt(request)), (outcome) => {
      if (retried >= times || !isRetryable(request, outcome)) return outcome
      return Random.nextRange(0.8, 1.2).pipe(
        Effect.flatMap((jitter) =>
          Effect.sleep(Duration.max(Duration.min(Duration.times(delay, 2 ** retried * jitter), longestBackoff), retryAfter(outcome)))
        ),
        Effect.zipRight(run(request, retried + 1))
      )
    })

  return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (request) => Effect.flatMap(Effect.flatMap(request, withIdempotencyKey), (keyed) => run(keyed, 0)),
    Effect.succeed
  )
}
