/**
 * The Promise facade (`makePromiseClient`) against the test server on 127.0.0.1, directly and
 * behind a front of the test's own (a real HTTP server) that answers 429 and 503 before it passes
 * requests on, hangs, or is not there: the default retries, the time limit, the error classes.
 */
import { HttpServer } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import {
  makePromiseClient,
  PlatformApiError,
  PlatformConnectionError,
  PlatformSchemaError
} from "@platform-kit/client"
import type { PromiseClient } from "@platform-kit/client"
import { Accounts } from "@platform-kit/server"
import { TestServerLive } from "@platform-kit/server/testing"
import { Effect, Redacted, TestServices } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** What the front does with each request, in order; after the plan it passes them on. */
type Step = "429" | "503" | "hang" | "pass"

interface Front {
  readonly url: string
  readonly seen: Array<{ readonly method: string; readonly idempotencyKey: string | undefined }>
  readonly close: () => Promise<void>
}

/** A real HTTP server in front of `target`, misbehaving as planned. */
const front = (target: string, plan: ReadonlyArray<Step>): Promise<Front> =>
  new Promise((resolve) => {
    const seen: Front["seen"] = []
    const server = Http.createServer((request, response) => {
      const step = plan[seen.length] ?? "pass"
      seen.push({ method: request.method!, idempotencyKey: request.headers["idempotency-key"] as string | undefined })
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", async () => {
        if (step === "hang") return
        if (step !== "pass") {
          response.writeHead(Number(step), { "content-type": "application/json", ...(step === "429" ? { "retry-after": "0" } : {}) })
          response.end(JSON.stringify({ detail: step === "429" ? "Too Many Requests" : "Service Unavailable" }))
          return
        }
        const headers: Record<string, string> = {}
        for (const [name, value] of Object.entries(request.headers)) {
          if (typeof value === "string" && name !== "host" && name !== "content-length") headers[name] = value
        }
        const body = Buffer.concat(chunks)
        const answer = await fetch(`${target}${request.url}`, {
          method: request.method!,
          headers,
          ...(body.length > 0 ? { body } : {})
        })
        response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" })
        response.end(Buffer.from(await answer.arrayBuffer()))
      })
    })
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        seen,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** The test server's own URL, and a fresh caller of it. */
const caller = Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const address = server.address as HttpServer.TcpAddress
  const { accountId, key } = yield* Effect.flatMap(Accounts, (accounts) => accounts.provisionUser())
  return { url: `http://127.0.0.1:${address.port}`, accountId, apiKey: Redacted.value(key) }
})

const using = <A>(client: PromiseClient, use: (client: PromiseClient) => Promise<A>) =>
  Effect.promise(() => use(client).finally(() => client.close()))

/** Runs `promise` and answers what it rejected with. */
const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected a rejection")
}

/** Retries sleep and time out on the real clock. */
const live = TestServices.provideLive

layer(TestServerLive)("makePromiseClient", (it) => {
  it.effect("the operations answer Promises of the decoded entities; failures are classes with status and detail", () =>
    live(Effect.gen(function*() {
      const { accountId, apiKey, url } = yield* caller
      yield* using(makePromiseClient({ baseUrl: url, apiKey, accountId }), async (platform) => {
        const group = await platform.modelGroups.create({ payload: { name: "promised", account_id: accountId } })
        const read = await platform.modelGroups.get({ path: { model_group_id: group.id } })
        assert.deepStrictEqual(read, group)
        const page = await platform.modelGroups.list({ urlParams: {} })
        assert.deepStrictEqual(page.items.map((item) => item.id), [group.id])

        const missing = await rejection(platform.modelGroups.get({ path: { model_group_id: "missing" } }))
        assert.instanceOf(missing, PlatformApiError)
        assert.strictEqual((missing as PlatformApiError).status, 404)
        assert.strictEqual((missing as PlatformApiError).tag, "NotFound")
        assert.isString((missing as PlatformApiError).detail)

        const forbidden = await rejection(platform.modelGroups.list({ urlParams: { account_id: "someone-else" } }))
        assert.strictEqual((forbidden as PlatformApiError).status, 403)

        // refused before it is sent: the operation's Schema names the field
        const invalid = await rejection(platform.modelGroups.create({ payload: { name: "", account_id: accountId } }))
        assert.instanceOf(invalid, PlatformSchemaError)
        assert.deepStrictEqual((invalid as PlatformSchemaError).issues.map((issue) => issue.path), [["name"]])
        assert.strictEqual((await platform.modelGroups.list({ urlParams: {} })).total_item_count, 1)

        // an error of the contract without a detail: its status and whole body
        const graph = await rejection(platform.applications.validate({
          payload: {
            nodes: [{ id: "llm", configuration: {}, application_node_schema_id: "completion_model_schema" }],
            edges: [{ from_node: "llm", to_node: "nowhere", from_field: "output", to_field: "input" }],
            version: "V0"
          }
        }))
        assert.instanceOf(graph, PlatformApiError)
        assert.strictEqual((graph as PlatformApiError).status, 400)
        assert.strictEqual((graph as PlatformApiError).tag, "ApplicationGraphInvalid")
        assert.isAbove(((graph as PlatformApiError).body as { errors: Array<unknown> }).errors.length, 0)
      })

      const stranger = makePromiseClient({ baseUrl: url, apiKey: "pk_unknown" })
      const unauthorized = yield* using(stranger, (platform) => rejection(platform.modelGroups.list({ urlParams: {} })))
      assert.strictEqual((unauthorized as PlatformApiError).status, 401)
      assert.strictEqual((unauthorized as PlatformApiError).tag, "Unauthorized")
    })))

  it.effect("by default a 429 and a 503 are waited out; the POST is performed once, under one idempotency key", () =>
    live(Effect.gen(function*() {
      const { accountId, apiKey, url } = yield* caller
      const flaky = yield* Effect.promise(() => front(url, ["429", "503"]))
      const group = yield* using(
        makePromiseClient({ baseUrl: flaky.url, apiKey }),
        (platform) => platform.modelGroups.create({ payload: { name: "after-429-503", account_id: accountId } })
      )
      yield* Effect.promise(flaky.close)
      assert.strictEqual(group.name, "after-429-503")
      assert.deepStrictEqual(flaky.seen.map((request) => request.method), ["POST", "POST", "POST"])
      assert.isString(flaky.seen[0]!.idempotencyKey)
      assert.strictEqual(new Set(flaky.seen.map((request) => request.idempotencyKey)).size, 1)
      const listed = yield* using(makePromiseClient({ baseUrl: url, apiKey }), (platform) => platform.modelGroups.list({ urlParams: {} }))
      assert.deepStrictEqual(listed.items.map((item) => item.id), [group.id])

      // three 503s outlast the two default retries: the last answer is the error
      const down = yield* Effect.promise(() => front(url, ["503", "503", "503"]))
      const error = yield* using(makePromiseClient({ baseUrl: down.url, apiKey, retry: { delay: "10 millis" } }), (platform) =>
        rejection(platform.modelGroups.get({ path: { model_group_id: group.id } })))
      yield* Effect.promise(down.close)
      assert.strictEqual(down.seen.length, 3)
      assert.instanceOf(error, PlatformApiError)
      assert.strictEqual((error as PlatformApiError).status, 503)
      assert.strictEqual((error as PlatformApiError).detail, "Service Unavailable")
    })))

  it.effect("an attempt past the time limit, or no server at all, is a PlatformConnectionError", () =>
    live(Effect.gen(function*() {
      const { apiKey, url } = yield* caller
      const hanging = yield* Effect.promise(() => front(url, ["hang", "hang"]))
      const timedOut = yield* using(
        makePromiseClient({ baseUrl: hanging.url, apiKey, retry: { times: 1, delay: "10 millis", timeout: "200 millis" } }),
        (platform) => rejection(platform.modelGroups.list({ urlParams: {} }))
      )
      assert.strictEqual(hanging.seen.length, 2)
      yield* Effect.promise(hanging.close)
      assert.instanceOf(timedOut, PlatformConnectionError)

      // the front closed: nothing listens on its port
      const refused = yield* using(makePromiseClient({ baseUrl: hanging.url, apiKey, retry: false }), (platform) =>
        rejection(platform.modelGroups.list({ urlParams: {} })))
      assert.instanceOf(refused, PlatformConnectionError)
    })))

  it.effect("what is not given comes from the environment: PLATFORM_BASE_URL, PLATFORM_API_KEY, PLATFORM_MAX_RETRIES", () =>
    live(Effect.gen(function*() {
      const { apiKey, url } = yield* caller
      const flaky = yield* Effect.promise(() => front(url, ["503"]))
      const saved = { ...process.env }
      Object.assign(process.env, { PLATFORM_BASE_URL: flaky.url, PLATFORM_API_KEY: apiKey, PLATFORM_MAX_RETRIES: "0" })
      const error = yield* using(makePromiseClient(), (platform) => rejection(platform.modelGroups.list({ urlParams: {} })))
        .pipe(Effect.ensuring(Effect.sync(() => {
          for (const name of ["PLATFORM_BASE_URL", "PLATFORM_API_KEY", "PLATFORM_MAX_RETRIES"]) {
            if (saved[name] === undefined) delete process.env[name]
            else process.env[name] = saved[name]
          }
        })))
      yield* Effect.promise(flaky.close)
      assert.strictEqual(flaky.seen.length, 1)
      assert.strictEqual((error as PlatformApiError).status, 503)
    })))
})
