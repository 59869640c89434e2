/**
 * The lean server (fast/server.ts) and `HttpApiBuilder.serve` answer alike: both serve one
 * database, and every request here goes to both; status, body and the headers a client reads
 * (`content-type`, `content-length`, `x-request-id` when sent, `idempotent-replayed`,
 * `retry-after`) must be equal. Ids and timestamps the server mints are compared by shape.
 *
 * Every endpoint of the API is sent, derived from the HttpApi itself: without a key, with a wrong
 * key, with an id that does not exist, with a broken, empty, too deep or wrongly shaped body, with
 * a bad query and a bad selected account. Then whole flows (create, read back through the other
 * engine, list, update, delete) on several families.
 */
import { HttpApi, HttpServer } from "@effect/platform"
import type { HttpApiEndpoint } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { PlatformApi } from "@platform-kit/api"
import { Context, Effect, Layer, Redacted } from "effect"
import { createServer } from "node:http"
import { Accounts } from "../src/auth/Accounts.js"
import { HttpLive } from "../src/app.js"
import { LeanHttpLive } from "../src/fast/server.js"
import { Ids } from "../src/platform/Ids.js"
import { DatabaseTest } from "../src/testDatabase.js"

interface Sent {
  readonly method: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | null>
  readonly body: unknown
}

const compared = ["content-type", "content-length", "idempotent-replayed", "retry-after"]

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const iso = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g

/** The body with minted ids and times replaced by their shape (lengths stay the same). */
const masked = (text: string, known: ReadonlySet<string>) =>
  text.replace(uuid, (id) => (known.has(id) ? id : "00000000-0000-0000-0000-000000000000"))
    .replace(iso, "2000-01-01T00:00:00.000Z")

const send = (base: string, sent: Sent, known: ReadonlySet<string>): Effect.Effect<Answer> =>
  Effect.promise(async () => {
    const response = await fetch(base + sent.path, {
      method: sent.method,
      headers: sent.headers ?? {},
      ...(sent.body === undefined ? {} : { body: sent.body })
    })
    const text = await response.text()
    const headers: Record<string, string | null> = {}
    for (const name of compared) headers[name] = response.headers.get(name)
    if (sent.headers?.["x-request-id"] !== undefined) headers["x-request-id"] = response.headers.get("x-request-id")
    else assert.match(response.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/, `${base} ${sent.method} ${sent.path}`)
    let body: unknown = masked(text, known)
    try {
      body = text.length > 0 ? JSON.parse(masked(text, known)) : ""
    } catch {
      // not JSON: compared as text
    }
    return { status: response.status, headers, body }
  })

/** Both servers, one database, one key: what every test below sends requests to. */
const servers = Effect.gen(function*() {
  const shared = yield* Layer.build(
    Accounts.Default.pipe(Layer.provideMerge(Ids.Live), Layer.provideMerge(DatabaseTest))
  )
  const provided = Layer.succeedContext(shared)
  const builder = yield* Layer.build(
    HttpLive.pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })), Layer.provide(provided))
  )
  const lean = yield* Layer.build(LeanHttpLive({ port: 0, host: "127.0.0.1" }).pipe(Layer.provide(provided)))
  const url = (context: Context.Context<HttpServer.HttpServer>) => {
    const address = Context.get(context, HttpServer.HttpServer).address
    return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  }
  const accounts = Context.get(shared, Accounts)
  const caller = yield* accounts.provisionUser()
  const other = yield* accounts.provisionUser()
  const known = new Set([caller.accountId, other.accountId])
  return { builder: url(builder), lean: url(lean), caller, other, known }
})

describe("lean server and HttpApiBuilder.serve answer alike", () => {
  it.scoped("every endpoint, with the ways a request goes wrong", () =>
    Effect.gen(function*() {
      const { builder, caller, known, lean } = yield* servers
      const key = Redacted.value(caller.key)
      const endpoints: Array<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps> = []
      // the OpenAI-style front door's endpoints: their errors carry OpenAI's `error` object (docs/inference-v5.md "Errors")
      const frontDoor = new Set<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>()
      HttpApi.reflect(PlatformApi, {
        onGroup() {},
        onEndpoint({ endpoint, group }) {
          endpoints.push(endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps)
          if (group.identifier === "openAiInference" || group.identifier === "betaInference") {
            frontDoor.add(endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps)
          }
        }
      })
      let openAiErrors = 0
      assert.isAbove(endpoints.length, 50)
      const missing = "5f0c6d59-8a57-4a43-9f0b-3f7c1d7a2b10"
      let checked = 0
      for (const endpoint of endpoints) {
        const path = endpoint.path.replace(/:(\w+)/g, () => missing)
        const body = endpoint.method === "POST" || endpoint.method === "PATCH" || endpoint.method === "PUT"
        const cases: Array<Sent> = [
          { method: endpoint.method, path },
          { method: endpoint.method, path, headers: { "x-api-key": "pk_wrong" } },
          { method: endpoint.method, path, headers: { authorization: "Bearer pk_wrong" } },
          { method: endpoint.method, path, headers: { "x-api-key": key, "x-request-id": "conformance-1" } },
          { method: endpoint.method, path, headers: { authorization: `Bearer ${key}`, "x-selected-account-id": missing } },
          { method: endpoint.method, path: `${path}?limit=abc&page=0&starting_after=x`, headers: { "x-api-key": key } }
        ]
        if (body) {
          for (const text of ["{", "", "[]", "{}", "{\"name\":1,\"account_id\":2}", `{"a":${"[".repeat(200)}${"]".repeat(200)}}`, "{\"n\":1e999}"]) {
            cases.push({ method: endpoint.method, path, headers: { "x-api-key": key, "content-type": "application/json" }, body: text })
          }
          cases.push({ method: endpoint.method, path, headers: { "x-api-key": key, "content-type": "text/plain" }, body: "{}" })
        }
        for (const sent of cases) {
          const fromLean = yield* send(lean, sent, known)
          const fromBuilder = yield* send(builder, sent, known)
          assert.deepStrictEqual(fromLean, fromBuilder, `${sent.method} ${sent.path} ${JSON.stringify(sent.headers)} ${sent.body ?? ""}`)
          if (frontDoor.has(endpoint) && fromLean.status >= 400) {
            assert.hasAllKeys(fromLean.body, ["detail", "error"], `${sent.method} ${sent.path} ${JSON.stringify(sent.headers)} ${sent.body ?? ""}`)
            assert.hasAllKeys((fromLean.body as any).error, ["message", "type", "param", "code"])
            openAiErrors++
          }
          checked++
        }
      }
      assert.isAbove(checked, 400)
      // 401 (none, wrong x-api-key, wrong Bearer), 403 or 422 of the selected account, 422s of the bodies, on 7 endpoints
      assert.isAbove(openAiErrors, 50)
    }), { timeout: 120_000 })

  it.scoped("flows: what one serving path wrote, the other reads the same; lists, updates and deletes agree", () =>
    Effect.gen(function*() {
      const { builder, caller, known, lean, other } = yield* servers
      const key = Redacted.value(caller.key)
      const otherKey = Redacted.value(other.key)
      const json = { "x-api-key": key, "content-type": "application/json" }
      const both = (sent: Sent) =>
        Effect.gen(function*() {
          const fromLean = yield* send(lean, sent, known)
          const fromBuilder = yield* send(builder, sent, known)
          assert.deepStrictEqual(fromLean, fromBuilder, `${sent.method} ${sent.path} ${sent.body ?? ""}`)
          return fromLean
        })
      /** Creates through each serving path; the ids become known (compared as they are from then on). */
      const create = (path: string, body: unknown) =>
        Effect.gen(function*() {
          const ids: Array<string> = []
          for (const base of [lean, builder]) {
            const response = yield* Effect.promise(() =>
              fetch(base + path, { method: "POST", headers: json, body: JSON.stringify(body) }).then(async (r) => ({
                status: r.status,
                body: await r.json() as any
              }))
            )
            assert.strictEqual(response.status, 200, `${path}: ${JSON.stringify(response.body)}`)
            const id = response.body.id ?? response.body.deployment_package_job_id
            known.add(id)
            ids.push(id)
          }
          return ids
        })

      const groups = yield* create("/v4/model-groups", { name: "g", account_id: caller.accountId })
      for (const id of groups) {
        yield* both({ method: "GET", path: `/v4/model-groups/${id}`, headers: { "x-api-key": key } })
        yield* both({ method: "GET", path: `/v4/model-groups/${id}`, headers: { "x-api-key": otherKey } })
      }
      yield* both({ method: "GET", path: "/v4/model-groups?limit=1&page=2", headers: { "x-api-key": key } })
      yield* both({ method: "GET", path: `/v4/model-groups?account_id=${caller.accountId}`, headers: { "x-api-key": key } })

      const knowledgeBases = yield* create("/v4/knowledge-bases", {
        knowledge_base_name: "docs",
        embedding_config: { type: "base" }
      })
      for (const id of knowledgeBases) {
        yield* both({ method: "GET", path: `/v4/knowledge-bases/${id}`, headers: { "x-api-key": key } })
      }
      yield* both({ method: "GET", path: "/v4/knowledge-bases", headers: { "x-api-key": key } })

      const evaluations = yield* create("/v5/evaluations", { name: "nightly", tags: ["a"] })
      for (const id of evaluations) {
        yield* both({ method: "GET", path: `/v5/evaluations/${id}`, headers: { "x-api-key": key } })
        yield* both({
          method: "PATCH",
          path: `/v5/evaluations/${id}`,
          headers: json,
          body: JSON.stringify({ name: 1 })
        })
      }
      yield* both({ method: "GET", path: "/v5/evaluations?limit=1", headers: { "x-api-key": key } })
      yield* both({ method: "GET", path: `/v5/evaluations?limit=1&starting_after=${evaluations[0]}`, headers: { "x-api-key": key } })

      const deployments = yield* create("/v5/agent-runtime/deployments", { name: "agent", build_id: "b1" })
      // both serving paths run the lifecycles in the background: compared once each has settled
      for (const id of deployments) {
        yield* Effect.promise(async () => {
          for (;;) {
            const response = await fetch(`${lean}/v5/agent-runtime/deployments/${id}`, { headers: { "x-api-key": key } })
            const { status } = await response.json() as { status: string }
            if (status === "READY") return
            await new Promise((resolve) => setTimeout(resolve, 50))
          }
        })
      }
      yield* both({ method: "GET", path: "/v5/agent-runtime/deployments?limit=1", headers: { authorization: `Bearer ${key}` } })
      for (const id of deployments) {
        yield* both({ method: "GET", path: `/v5/agent-runtime/deployments/${id}`, headers: { "x-api-key": key } })
      }

      // the same Idempotency-Key: the first serving path performs, the other replays the record
      const keyed = { ...json, "idempotency-key": "conformance-key" }
      const first = yield* send(lean, { method: "POST", path: "/v4/model-groups", headers: keyed, body: JSON.stringify({ name: "k", account_id: caller.accountId }) }, known)
      const replayed = yield* send(builder, { method: "POST", path: "/v4/model-groups", headers: keyed, body: JSON.stringify({ name: "k", account_id: caller.accountId }) }, known)
      assert.strictEqual(first.status, 200)
      assert.strictEqual(replayed.headers["idempotent-replayed"], "true")
      assert.deepStrictEqual(replayed.body, first.body)

      // a keyed POST whose body is not labelled JSON (curl -d sends a form type) is read once, as JSON
      const plain = { "x-api-key": key, "content-type": "application/x-www-form-urlencoded", "idempotency-key": "plain-key" }
      const body = JSON.stringify({ name: "plain", account_id: caller.accountId })
      const performed = yield* send(builder, { method: "POST", path: "/v4/model-groups", headers: plain, body }, known)
      assert.strictEqual(performed.status, 200)
      const again = yield* send(lean, { method: "POST", path: "/v4/model-groups", headers: plain, body }, known)
      assert.strictEqual(again.headers["idempotent-replayed"], "true")
      assert.deepStrictEqual(again.body, performed.body)
    }), { timeout: 120_000 })
})
