/**
 * Opt-in retries for the client (docs/idempotency.md): `makeClient({ apiKey, retry: {} })`.
 *
 * An attempt that fails in transport, takes longer than `timeout`, or answers 408, 429 or a 5xx is
 * tried again after a growing, jittered delay (at least the server's `Retry-After`, up to a minute).
 * Every POST gets an `Idempotency-Key` once, before its first attempt, so all its attempts carry
 * the same key and the server performs it once. GET, HEAD, OPTIONS and PUT are retried as they are.
 * PATCH and DELETE, which the server does not deduplicate, are retried only on 429 (the request was
 * refused before it ran). A POST that answers 409 with `Retry-After` (its key's first attempt is
 * still running) is retried too. When the retries run out, the last answer or error is the result.
 */
import { HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import type { HttpClientResponse } from "@effect/platform"
import { Duration, Effect, Either, Random } from "effect"

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  readonly times?: number | undefined
  /** Delay before the first retry; it doubles on each later one, with ±20% jitter (default 100 millis). */
  readonly delay?: Duration.DurationInput | undefined
  /** Longest an attempt may wait for its response; then it counts as a transport failure (default: no limit). */
  readonly timeout?: Duration.DurationInput | undefined
}

/** The request header that makes a POST safe to retry. */
export const IdempotencyKeyHeader = "idempotency-key"

const longestRetryAfter = Duration.minutes(1)

const replayableMethods = new Set(["GET", "HEAD", "OPTIONS", "PUT", "POST"])

const isRetryableStatus = (status: number) => status === 408 || status === 429 || (status >= 500 && status <= 599)

type Outcome = Either.Either<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>

/** Whether an attempt's outcome is worth another attempt of the same request. */
export const isRetryable = (request: HttpClientRequest.HttpClientRequest, outcome: Outcome): boolean => {
  const replayable = replayableMethods.has(request.method)
  if (Either.isLeft(outcome)) {
    return replayable && outcome.left._tag === "RequestError" && outcome.left.reason === "Transport"
  }
  const { headers, status } = outcome.right
  if (status === 429) return true
  if (status === 409) return request.method === "POST" && headers["retry-after"] !== undefined
  return replayable && isRetryableStatus(status)
}

/** The server's `Retry-After` in seconds, when it sent one (the HTTP-date form is not used here). */
const retryAfter = (outcome: Outcome): Duration.Duration => {
  if (Either.isLeft(outcome)) return Duration.zero
  const seconds = Number(outcome.right.headers["retry-after"])
  return Number.isFinite(seconds) && seconds > 0 ? Duration.min(Duration.seconds(seconds), longestRetryAfter) : Duration.zero
}

/** Adds an `Idempotency-Key` to a POST that has none; the same request object is then retried. */
const withIdempotencyKey = (request: HttpClientRequest.HttpClientRequest) =>
  request.method !== "POST" || request.headers[IdempotencyKeyHeader] !== undefined
    ? Effect.succeed(request)
    : Effect.sync(() => HttpClientRequest.setHeader(request, IdempotencyKeyHeader, globalThis.crypto.randomUUID()))

/** Wraps an `HttpClient` with the retry policy. */
export const withRetries = (policy: RetryPolicy = {}) => (client: HttpClient.HttpClient): HttpClient.HttpClient => {
  const times = Math.max(0, policy.times ?? 3)
  const delay = Duration.decode(policy.delay ?? Duration.millis(100))
  const timeout = policy.timeout === undefined ? undefined : Duration.decode(policy.timeout)

  const attempt = (request: HttpClientRequest.HttpClientRequest) =>
    timeout === undefined
      ? client.execute(request)
      : Effect.timeoutFail(client.execute(request), {
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
          Effect.sleep(Duration.max(Duration.times(delay, 2 ** retried * jitter), retryAfter(outcome)))
        ),
        Effect.zipRight(run(request, retried + 1))
      )
    })

  return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (request) => Effect.flatMap(Effect.flatMap(request, withIdempotencyKey), (keyed) => run(keyed, 0)),
    Effect.succeed
  )
}
