import { HttpClient, HttpClientError, HttpClientResponse } from "@effect/platform"
import type { HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { makeClient } from "@platform-kit/client"
import type { RetryPolicy } from "@platform-kit/client"
import { Accounts } from "@platform-kit/server"
import { TestServerLive } from "@platform-kit/server/testing"
import { Effect, Redacted, TestServices } from "effect"

/** What the flaky network does to each attempt, in order; after the plan, attempts pass. */
type Step =
  | "pass"
  | "lose-response" // the server performs the request, then the connection drops
  | "503" // a proxy answers 503; the server never sees the request
  | "hang" // the server performs the request, the response never arrives
  | "busy" // 409 + retry-after: the key's first request is still running
  | "conflict" // 409 without retry-after: retried like a 429 (generated SDKs do)
  | "final" // 409 + x-should-retry: false: the server says a retry is useless

interface Seen {
  readonly method: string
  readonly url: string
  readonly idempotencyKey: string | undefined
}

/** The test server's HttpClient behind a network that misbehaves as planned, and what it carried. */
const flakyNetwork = (plan: ReadonlyArray<Step>) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const seen: Array<Seen> = []
    const transportError = (request: HttpClientRequest.HttpClientRequest) =>
      new HttpClientError.RequestError({ request, reason: "Transport", description: "connection reset" })
    const flaky = HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
      (effect) =>
        Effect.flatMap(effect, (request) => {
          const step = plan[seen.length] ?? "pass"
          seen.push({ method: request.method, url: request.url, idempotencyKey: request.headers["idempotency-key"] })
          switch (step) {
            case "pass":
              return client.execute(request)
            case "lose-response":
              return Effect.flatMap(client.execute(request), () => Effect.fail(transportError(request)))
            case "503":
              return Effect.succeed(HttpClientResponse.fromWeb(
                request,
                new Response(JSON.stringify({ detail: "Service Unavailable" }), {
                  status: 503,
                  headers: { "content-type": "application/json" }
                })
              ))
            case "busy":
            case "conflict":
            case "final":
              return Effect.succeed(HttpClientResponse.fromWeb(
                request,
                new Response(JSON.stringify({ detail: "busy" }), {
                  status: 409,
                  headers: {
                    "content-type": "application/json",
                    ...(step === "busy" ? { "retry-after": "0" } : {}),
                    ...(step === "final" ? { "x-should-retry": "false" } : {})
                  }
                })
              ))
            case "hang":
              return Effect.zipRight(client.execute(request), Effect.never)
          }
        }),
      Effect.succeed
    )
    return { flaky, seen }
  })

/** A fresh caller, and the typed client over the flaky network with the given retry policy. */
const setup = (plan: ReadonlyArray<Step>, retry: RetryPolicy | boolean | undefined) =>
  Effect.gen(function*() {
    const { accountId, key } = yield* Effect.flatMap(Accounts, (a) => a.provisionUser())
    const { flaky, seen } = yield* flakyNetwork(plan)
    const apiKey = Redacted.value(key)
    const client = yield* makeClient({ apiKey, retry }).pipe(Effect.provideService(HttpClient.HttpClient, flaky))
    const direct = yield* makeClient({ apiKey })
    const groups = Effect.map(direct.modelGroups.list({ urlParams: {} }), (page) => page.items)
    return { accountId, client, seen, groups }
  })

const fast: RetryPolicy = { delay: "5 millis" }

/** Retries sleep and time out on the real clock (the test server is local, so this stays short). */
const live = TestServices.provideLive

layer(TestServerLive)("retry policy", (it) => {
  it.effect("a POST whose response was lost is retried with the same key and performed once", () =>
    live(Effect.gen(function*() {
      const { accountId, client, groups, seen } = yield* setup(["lose-response"], fast)
      const group = yield* client.modelGroups.create({ payload: { name: "once", account_id: accountId } })
      assert.strictEqual(seen.length, 2)
      assert.isString(seen[0]!.idempotencyKey)
      assert.strictEqual(seen[1]!.idempotencyKey, seen[0]!.idempotencyKey)
      assert.deepStrictEqual((yield* groups).map((g) => g.id), [group.id])
    })))

  it.effect("a 503 is retried; the POST reaches the server once and the client returns the entity", () =>
    live(Effect.gen(function*() {
      const { accountId, client, groups, seen } = yield* setup(["503", "503"], fast)
      const group = yield* client.modelGroups.create({ payload: { name: "after-503", account_id: accountId } })
      assert.strictEqual(seen.length, 3)
      assert.strictEqual(new Set(seen.map((s) => s.idempotencyKey)).size, 1)
      assert.strictEqual(group.name, "after-503")
      assert.deepStrictEqual((yield* groups).map((g) => g.id), [group.id])
    })))

  it.effect("an attempt that times out is retried and answered by the first one's recorded response", () =>
    live(Effect.gen(function*() {
      const { accountId, client, groups, seen } = yield* setup(["hang"], { ...fast, timeout: "300 millis" })
      const group = yield* client.modelGroups.create({ payload: { name: "slow", account_id: accountId } })
      assert.strictEqual(seen.length, 2)
      assert.deepStrictEqual((yield* groups).map((g) => g.id), [group.id])
    })))

  it.effect("each POST gets its own key; GETs are retried without one", () =>
    live(Effect.gen(function*() {
      const { accountId, client, seen } = yield* setup(["pass", "pass", "503"], fast)
      const a = yield* client.modelGroups.create({ payload: { name: "a", account_id: accountId } })
      const b = yield* client.modelGroups.create({ payload: { name: "b", account_id: accountId } })
      assert.notStrictEqual(a.id, b.id)
      assert.notStrictEqual(seen[0]!.idempotencyKey, seen[1]!.idempotencyKey)
      const page = yield* client.modelGroups.list({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 2)
      assert.deepStrictEqual(seen.slice(2).map((s) => [s.method, s.idempotencyKey]), [["GET", undefined], ["GET", undefined]])
    })))

  it.effect("a 409 is retried with the same key (with or without retry-after); x-should-retry: false makes it final", () =>
    live(Effect.gen(function*() {
      const busy = yield* setup(["busy"], fast)
      const group = yield* busy.client.modelGroups.create({ payload: { name: "waited", account_id: busy.accountId } })
      assert.strictEqual(busy.seen.length, 2)
      assert.deepStrictEqual((yield* busy.groups).map((g) => g.id), [group.id])

      const conflict = yield* setup(["conflict", "conflict", "conflict"], fast)
      yield* Effect.flip(conflict.client.modelGroups.create({ payload: { name: "x", account_id: conflict.accountId } }))
      assert.strictEqual(conflict.seen.length, 3)
      assert.strictEqual(new Set(conflict.seen.map((s) => s.idempotencyKey)).size, 1)

      const final = yield* setup(["final"], fast)
      yield* Effect.flip(final.client.modelGroups.create({ payload: { name: "x", account_id: final.accountId } }))
      assert.strictEqual(final.seen.length, 1)
    })))

  it.effect("when the retries run out the last failure is the result", () =>
    live(Effect.gen(function*() {
      const { accountId, client, groups, seen } = yield* setup(["503", "503", "503"], { times: 2, delay: "1 millis" })
      yield* Effect.flip(client.modelGroups.create({ payload: { name: "never", account_id: accountId } }))
      assert.strictEqual(seen.length, 3)
      assert.deepStrictEqual(yield* groups, [])
    })))

  it.effect("a PATCH is not retried on a 503 (the server does not deduplicate it)", () =>
    live(Effect.gen(function*() {
      const { accountId, client, seen } = yield* setup(["pass", "503"], fast)
      const evaluation = yield* client.evaluations.create({ payload: { name: "e", account_id: accountId }, urlParams: {} })
      yield* Effect.flip(client.evaluations.update({
        path: { evaluation_id: evaluation.id },
        payload: { name: "renamed" },
        urlParams: {}
      }))
      assert.deepStrictEqual(seen.map((s) => s.method), ["POST", "PATCH"])
    })))

  it.effect("by default: two retries, 500 millis then a second, then the last answer", () =>
    live(Effect.gen(function*() {
      const { accountId, client, groups, seen } = yield* setup(["503", "503", "503"], undefined)
      const started = Date.now()
      yield* Effect.flip(client.modelGroups.create({ payload: { name: "never", account_id: accountId } }))
      const waited = Date.now() - started
      assert.strictEqual(seen.length, 3)
      assert.isAtLeast(waited, (0.5 + 1) * 0.8 * 1000)
      assert.strictEqual(new Set(seen.map((s) => s.idempotencyKey)).size, 1)
      assert.deepStrictEqual(yield* groups, [])
    })))

  it.effect("with retry: false nothing is retried and no key is sent", () =>
    live(Effect.gen(function*() {
      const { accountId, client, groups, seen } = yield* setup(["lose-response"], false)
      const error = yield* Effect.flip(client.modelGroups.create({ payload: { name: "lost", account_id: accountId } }))
      assert.strictEqual(error._tag, "RequestError")
      assert.strictEqual(seen.length, 1)
      assert.isUndefined(seen[0]!.idempotencyKey)
      assert.strictEqual((yield* groups).length, 1) // performed, but the caller never heard
    })))
})
