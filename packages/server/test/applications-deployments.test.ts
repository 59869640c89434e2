import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, TestClock, TestServices } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

/** The statuses a poller of deployment `id` sees, each change once, until `done` (every `every` ms, 10 s at most). */
const pollStatuses = (id: string, key: string, done: (status: string) => boolean, every = 5) =>
  Effect.gen(function*() {
    const seen: Array<{ status: string; at: number }> = []
    const started = Date.now()
    while (Date.now() - started < 10_000) {
      const status = (yield* request("GET", `/v4/application-deployments/${id}`, { key })).body.status as string
      if (seen.at(-1)?.status !== status) seen.push({ status, at: Date.now() - started })
      if (done(status)) break
      yield* TestServices.provideLive(Effect.sleep(`${every} millis`))
    }
    return seen
  })

const createDeployment = (caller: { key: string; accountId: string }, isActive: boolean) =>
  Effect.map(
    request("POST", "/v4/application-deployments", {
      key: caller.key,
      body: { name: "app", endpoint: "https://example.org", application_variant_id: "v", is_active: isActive, account_id: caller.accountId }
    }),
    (response) => {
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.status, "PENDING")
      return response.body.id as string
    }
  )

layer(TestServerLive)("application deployment lifecycle, immediate progression (the suite's)", (it) => {
  it.effect("a poller sees PENDING, then READY; created inactive, PENDING then STOPPED; nothing moves after", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const active = yield* createDeployment(caller, true)
      const inactive = yield* createDeployment(caller, false)
      const ended = (status: string) => status !== "PENDING"
      const activeSeen = yield* pollStatuses(active, caller.key, ended)
      const inactiveSeen = yield* pollStatuses(inactive, caller.key, ended)
      assert.deepStrictEqual(activeSeen.map((s) => s.status).filter((s) => s !== "PENDING"), ["READY"])
      assert.deepStrictEqual(inactiveSeen.map((s) => s.status).filter((s) => s !== "PENDING"), ["STOPPED"])
      yield* TestServices.provideLive(Effect.sleep("300 millis"))
      assert.strictEqual((yield* request("GET", `/v4/application-deployments/${active}`, { key: caller.key })).body.status, "READY")
      assert.strictEqual((yield* request("GET", `/v4/application-deployments/${inactive}`, { key: caller.key })).body.status, "STOPPED")
    }))
})

/** The suite's server with `timed` progression and half-second steps. */
const TimedServer = TestServerLive.pipe(
  Layer.provide(Layer.setConfigProvider(
    ConfigProvider.fromMap(new Map([["PLATFORM_PROGRESSION", "timed"], ["PLATFORM_STEP_SECONDS", "0.5"]])).pipe(
      ConfigProvider.orElse(() => ConfigProvider.fromEnv())
    )
  ))
)

layer(TimedServer)("application deployment lifecycle, timed progression", (it) => {
  it.effect("PENDING for the simulated step (PLATFORM_STEP_SECONDS), then READY", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createDeployment(caller, true)
      const seen = yield* pollStatuses(id, caller.key, (status) => status !== "PENDING", 20)
      assert.deepStrictEqual(seen.map((s) => s.status), ["PENDING", "READY"])
      // READY came after the step's half second, not before
      assert.isAtLeast(seen[1]!.at, 450)
    }))
})

layer(TestServerLive)("application deployments", (it) => {
  it.effect("create answers a PENDING deployment with audit fields from the key; get and list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, client } = yield* provision()
      const created = yield* client.applications.createDeployment({
        payload: {
          name: "support bot",
          endpoint: "https://apps.example.com/support",
          application_variant_id: "variant-1",
          is_active: true,
          account_id: accountId
        }
      })
      assert.match(created.id, uuid)
      assert.strictEqual(created.name, "support bot")
      assert.strictEqual(created.endpoint, "https://apps.example.com/support")
      assert.strictEqual(created.application_variant_id, "variant-1")
      assert.strictEqual(created.status, "PENDING")
      assert.strictEqual(created.is_active, true)
      assert.strictEqual(created.account_id, accountId)
      assert.strictEqual(created.created_by_user_id, identityId)
      assert.strictEqual(created.created_by_identity_type, "user")
      assert.strictEqual(created.created_at, "1970-01-01T00:00:00.000Z")

      // read back as created, its lifecycle moving it on (docs/applications.md: PENDING, then READY)
      const read = yield* client.applications.getDeployment({ path: { application_deployment_id: created.id } })
      assert.include(["PENDING", "READY"], read.status)
      assert.deepStrictEqual({ ...read, status: created.status }, created)

      const page = yield* client.applications.listDeployments({ urlParams: {} })
      assert.deepStrictEqual(
        { ...page, items: page.items.map((item) => ({ ...item, status: created.status })) },
        { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 }
      )
    }))

  it.effect("the wire body has exactly the spec's fields; a status in the body is ignored", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision({ type: "service_account" })
      const response = yield* request("POST", "/v4/application-deployments", {
        key,
        body: {
          name: "n",
          endpoint: "e",
          application_variant_id: "v",
          is_active: false,
          account_id: accountId,
          status: "READY",
          created_by_user_id: "someone-else"
        }
      })
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body, {
        id: response.body.id,
        name: "n",
        endpoint: "e",
        application_variant_id: "v",
        status: "PENDING",
        is_active: false,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "service_account",
        created_at: "1970-01-01T00:00:00.000Z"
      })
      const read = yield* request("GET", `/v4/application-deployments/${response.body.id}`, { key })
      // created inactive: it ends STOPPED rather than READY
      assert.include(["PENDING", "STOPPED"], read.body.status)
      assert.deepStrictEqual({ ...read.body, status: "PENDING" }, response.body)
    }))

  it.effect("validation: every missing field, wrong types and malformed JSON are 422 with exact loc; nothing is written", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/application-deployments", { key, body: {} })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "name"], type: "missing" },
        { loc: ["body", "endpoint"], type: "missing" },
        { loc: ["body", "application_variant_id"], type: "missing" },
        { loc: ["body", "is_active"], type: "missing" },
        { loc: ["body", "account_id"], type: "missing" }
      ])

      const wrongTypes = yield* request("POST", "/v4/application-deployments", {
        key,
        body: { name: "", endpoint: 3, application_variant_id: null, is_active: "yes", account_id: accountId }
      })
      assert.strictEqual(wrongTypes.status, 422)
      assert.deepStrictEqual(issues(wrongTypes), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "endpoint"], type: "string_type" },
        { loc: ["body", "application_variant_id"], type: "string_type" },
        { loc: ["body", "is_active"], type: "bool_type" }
      ])

      const malformed = yield* request("POST", "/v4/application-deployments", { key, body: "{\"name\":" })
      assert.strictEqual(malformed.status, 422)
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const page = yield* client.applications.listDeployments({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("list query validation: page and limit out of range, limit not a number", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const range = yield* request("GET", "/v4/application-deployments?page=0&limit=10001", { key })
      assert.strictEqual(range.status, 422)
      assert.deepStrictEqual(issues(range), [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "limit"], type: "range_error" }
      ])
      const nan = yield* request("GET", "/v4/application-deployments?limit=ten", { key })
      assert.deepStrictEqual(issues(nan), [{ loc: ["query", "limit"], type: "number_parsing" }])
    }))

  it.effect("401 without a key or with an unknown one, on every endpoint; nothing is written", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const body = { name: "n", endpoint: "e", application_variant_id: "v", is_active: true, account_id: accountId }
      const create = yield* request("POST", "/v4/application-deployments", { body })
      assert.strictEqual(create.status, 401)
      assert.isString(create.body.detail)
      const wrongKey = yield* request("POST", "/v4/application-deployments", { key: "pk_nope", body })
      assert.strictEqual(wrongKey.status, 401)
      assert.strictEqual((yield* request("GET", "/v4/application-deployments/x")).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/application-deployments")).status, 401)
      assert.strictEqual((yield* client.applications.listDeployments({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("404 for a missing id and another account's deployment; 403 for another account_id, writing nothing", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const deployment = yield* alice.client.applications.createDeployment({
        payload: { name: "a", endpoint: "e", application_variant_id: "v", is_active: true, account_id: alice.accountId }
      })

      const missing = yield* Effect.flip(
        alice.client.applications.getDeployment({ path: { application_deployment_id: "no-such-id" } })
      )
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/application-deployments/${deployment.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Application deployment ${deployment.id} not found` })

      const forbidden = yield* Effect.flip(bob.client.applications.createDeployment({
        payload: { name: "b", endpoint: "e", application_variant_id: "v", is_active: true, account_id: alice.accountId }
      }))
      assert.strictEqual(forbidden._tag, "Forbidden")
      const foreignList = yield* request("GET", `/v4/application-deployments?account_id=${alice.accountId}`, {
        key: bob.key
      })
      assert.strictEqual(foreignList.status, 403)

      assert.strictEqual((yield* bob.client.applications.listDeployments({ urlParams: {} })).total_item_count, 0)
      const alices = yield* alice.client.applications.listDeployments({ urlParams: {} })
      assert.deepStrictEqual(alices.items.map((item) => item.id), [deployment.id])
    }))

  it.effect("list pages newest first with page/limit and narrows by account_id", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      for (let i = 0; i < 5; i++) {
        yield* client.applications.createDeployment({
          payload: { name: `d${i}`, endpoint: "e", application_variant_id: "v", is_active: i % 2 === 0, account_id: accountId }
        })
        yield* TestClock.adjust("1 millis")
      }
      const first = yield* client.applications.listDeployments({ urlParams: { page: 1, limit: 2 } })
      assert.deepStrictEqual(first.items.map((d) => d.name), ["d4", "d3"])
      assert.strictEqual(first.total_item_count, 5)
      assert.strictEqual(first.items_per_page, 2)
      const last = yield* client.applications.listDeployments({ urlParams: { page: 3, limit: 2, account_id: accountId } })
      assert.deepStrictEqual(last.items.map((d) => d.name), ["d0"])
      assert.strictEqual(last.current_page, 3)
      const beyond = yield* client.applications.listDeployments({ urlParams: { page: 9, limit: 2 } })
      assert.deepStrictEqual(beyond.items, [])
      assert.strictEqual(beyond.total_item_count, 5)
    }))
})
