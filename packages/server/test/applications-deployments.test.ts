import { SqlClient } from "@effect/sql"
import { assert, describe, it as plain, layer } from "@effect/vitest"
import type { Client } from "@platform-kit/client"
import type { UpdateApplicationDeployment } from "@platform-kit/schema"
import { Effect, Layer, Option, TestClock, TestServices } from "effect"
import { DeploymentsRepo } from "../src/applications/DeploymentsRepo.js"
import { UnmigratedDatabaseTest } from "../src/testDatabase.js"
import { eventually, issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { timedServer } from "./support/progression.js"
import { storedVariant } from "./support/applications.js"
import { migrateAll, migrateUpTo } from "./support/migrations.js"

const statusOf = (id: string, client: Client) =>
  Effect.map(client.applications.getDeployment({ path: { application_deployment_id: id } }), (deployment) => deployment.status as string)

/** The statuses a poller of deployment `id` sees, each change once, until `done` (`eventually`, 10 s at most). */
const pollStatuses = (id: string, client: Client, done: (status: string) => boolean) =>
  Effect.gen(function*() {
    const seen: Array<{ status: string; at: number }> = []
    const started = Date.now()
    yield* eventually(
      Effect.map(statusOf(id, client), (status) => {
        if (seen.at(-1)?.status !== status) seen.push({ status, at: Date.now() - started })
        return Option.liftPredicate(status, done)
      }),
      10_000
    )
    return seen
  })

const createDeployment = (caller: { accountId: string; client: Client }, isActive: boolean) =>
  Effect.gen(function*() {
    const { variant } = yield* storedVariant(caller.client, caller.accountId)
    const deployment = yield* caller.client.applications.createDeployment({
      payload: { name: "app", endpoint: "https://example.org", application_variant_id: variant, is_active: isActive, account_id: caller.accountId }
    })
    assert.strictEqual(deployment.status, "PENDING")
    return deployment.id
  })

/** A raw PATCH, for bodies the typed client will not send and answers it will not show. */
const patch = (id: string, key: string, body: unknown) => request("PATCH", `/v4/application-deployments/${id}`, { key, body })
const update = (id: string, client: Client, payload: Partial<UpdateApplicationDeployment>) =>
  client.applications.updateDeployment({ path: { application_deployment_id: id }, payload })
const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

layer(TestServerLive)("application deployment lifecycle, immediate progression (the suite's)", (it) => {
  it.effect("a poller sees PENDING, then READY; created inactive, PENDING then STOPPED; nothing moves after", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const active = yield* createDeployment(caller, true)
      const inactive = yield* createDeployment(caller, false)
      const ended = (status: string) => status !== "PENDING"
      const activeSeen = yield* pollStatuses(active, caller.client, ended)
      const inactiveSeen = yield* pollStatuses(inactive, caller.client, ended)
      assert.deepStrictEqual(activeSeen.map((s) => s.status).filter((s) => s !== "PENDING"), ["READY"])
      assert.deepStrictEqual(inactiveSeen.map((s) => s.status).filter((s) => s !== "PENDING"), ["STOPPED"])
      yield* TestServices.provideLive(Effect.sleep("300 millis"))
      assert.strictEqual(yield* statusOf(active, caller.client), "READY")
      assert.strictEqual(yield* statusOf(inactive, caller.client), "STOPPED")
    }))
})

layer(TestServerLive)("PATCH /v4/application-deployments/{id}, immediate progression", (it) => {
  it.effect("is_active false stops a READY deployment; true again goes back through PENDING to READY", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createDeployment(caller, true)
      yield* pollStatuses(id, caller.client, (status) => status === "READY")

      const stopped = yield* update(id, caller.client, { is_active: false })
      assert.strictEqual(stopped.status, "STOPPED")
      assert.strictEqual(stopped.is_active, false)
      yield* live(300)
      assert.strictEqual(yield* statusOf(id, caller.client), "STOPPED")

      const started = yield* update(id, caller.client, { is_active: true })
      assert.strictEqual(started.status, "PENDING")
      assert.strictEqual(started.is_active, true)
      const seen = yield* pollStatuses(id, caller.client, (status) => status !== "PENDING")
      assert.deepStrictEqual(seen.map((s) => s.status).filter((s) => s !== "PENDING"), ["READY"])

      // the typed client: a name alone changes the name, nothing else
      const renamed = yield* caller.client.applications.updateDeployment({
        path: { application_deployment_id: id },
        payload: { name: "renamed" }
      })
      assert.strictEqual(renamed.name, "renamed")
      assert.strictEqual(renamed.status, "READY")
      assert.strictEqual(renamed.is_active, true)
      // active and READY: activating again changes nothing (no new lifecycle)
      const again = yield* update(id, caller.client, { is_active: true })
      assert.strictEqual(again.status, "READY")
      // the wire body: what the PATCH answered, with exactly these fields
      const read = yield* request("GET", `/v4/application-deployments/${id}`, { key: caller.key })
      assert.deepStrictEqual(read.body, again)
      assert.deepStrictEqual(Object.keys(read.body).sort(), [
        "account_id",
        "application_variant_id",
        "created_at",
        "created_by_identity_type",
        "created_by_user_id",
        "endpoint",
        "id",
        "is_active",
        "name",
        "status"
      ])
    }))

  it.effect("created inactive (STOPPED), then activated: PENDING, then READY", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createDeployment(caller, false)
      yield* pollStatuses(id, caller.client, (status) => status === "STOPPED")
      const started = yield* update(id, caller.client, { is_active: true, name: "on" })
      assert.strictEqual(started.status, "PENDING")
      assert.strictEqual(started.name, "on")
      const seen = yield* pollStatuses(id, caller.client, (status) => status !== "PENDING")
      assert.strictEqual(seen.at(-1)!.status, "READY")
    }))

  it.effect("bad bodies are 422 with exact loc, another account's deployment 404, no key 401; nothing changes", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const id = yield* createDeployment(alice, true)
      yield* pollStatuses(id, alice.client, (status) => status === "READY")
      const read = alice.client.applications.getDeployment({ path: { application_deployment_id: id } })
      const before = yield* read

      const wrong = yield* patch(id, alice.key, { name: "", is_active: "yes" })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "is_active"], type: "bool_type" }
      ])
      const malformed = yield* request("PATCH", `/v4/application-deployments/${id}`, { key: alice.key, body: "{" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const foreign = yield* patch(id, bob.key, { is_active: false })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Application deployment ${id} not found` })
      const missing = yield* Effect.flip(update("no-such-id", alice.client, { is_active: false }))
      assert.strictEqual(missing._tag, "NotFound")
      const anonymous = yield* request("PATCH", `/v4/application-deployments/${id}`, { body: { is_active: false } })
      assert.strictEqual(anonymous.status, 401)

      assert.deepStrictEqual(yield* read, before)
    }))
})


layer(timedServer(3))("application deployment lifecycle, timed progression, activated anew while provisioning", (it) => {
  it.effect("stopped and activated again before the first run's step ends: that step moves nothing, the new run's step makes it READY", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createDeployment(caller, true)
      yield* live(1500)
      assert.strictEqual((yield* update(id, caller.client, { is_active: false })).status, "STOPPED")
      const activated = Date.now()
      assert.strictEqual((yield* update(id, caller.client, { is_active: true })).status, "PENDING")
      // the first run's step is due 1.5 s from now and fires within a second of it, while the
      // deployment is PENDING in its second activation: it must move nothing
      yield* live(2700 - (Date.now() - activated))
      assert.strictEqual(yield* statusOf(id, caller.client), "PENDING")
      // the second run's step, three seconds after the activation, makes it READY
      const seen = yield* pollStatuses(id, caller.client, (status) => status !== "PENDING")
      assert.deepStrictEqual(seen.map((s) => s.status), ["PENDING", "READY"])
      assert.isAtLeast(Date.now() - activated, 2900)
    }))
})

layer(timedServer(0.5))("application deployment lifecycle, timed progression", (it) => {
  it.effect("PENDING for the simulated step (PLATFORM_STEP_SECONDS), then READY", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createDeployment(caller, true)
      const seen = yield* pollStatuses(id, caller.client, (status) => status !== "PENDING")
      assert.deepStrictEqual(seen.map((s) => s.status), ["PENDING", "READY"])
      // READY came after the step's half second, not before
      assert.isAtLeast(seen[1]!.at, 450)
    }))

  it.effect("stopped while provisioning: STOPPED stays (the step of the stopped run finds it stopped)", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createDeployment(caller, true)
      assert.strictEqual((yield* update(id, caller.client, { is_active: false })).status, "STOPPED")
      // the run's step ends after half a second (the engine's timers fire within a second of it)
      yield* live(1800)
      assert.strictEqual(yield* statusOf(id, caller.client), "STOPPED")
    }))
})

layer(TestServerLive)("application deployments", (it) => {
  it.effect("create answers a PENDING deployment with audit fields from the key; get and list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, client } = yield* provision()
      const { variant } = yield* storedVariant(client, accountId)
      const created = yield* client.applications.createDeployment({
        payload: {
          name: "support bot",
          endpoint: "https://apps.example.com/support",
          application_variant_id: variant,
          is_active: true,
          account_id: accountId
        }
      })
      assert.match(created.id, uuid)
      assert.strictEqual(created.name, "support bot")
      assert.strictEqual(created.endpoint, "https://apps.example.com/support")
      assert.strictEqual(created.application_variant_id, variant)
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
      const { accountId, identityId, key, client } = yield* provision({ type: "service_account" })
      const { variant } = yield* storedVariant(client, accountId)
      const response = yield* request("POST", "/v4/application-deployments", {
        key,
        body: {
          name: "n",
          endpoint: "e",
          application_variant_id: variant,
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
        application_variant_id: variant,
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
      const { variant } = yield* storedVariant(alice.client, alice.accountId)
      const deployment = yield* alice.client.applications.createDeployment({
        payload: { name: "a", endpoint: "e", application_variant_id: variant, is_active: true, account_id: alice.accountId }
      })

      const missing = yield* Effect.flip(
        alice.client.applications.getDeployment({ path: { application_deployment_id: "no-such-id" } })
      )
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/application-deployments/${deployment.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Application deployment ${deployment.id} not found` })

      const forbidden = yield* Effect.flip(bob.client.applications.createDeployment({
        payload: { name: "b", endpoint: "e", application_variant_id: variant, is_active: true, account_id: alice.accountId }
      }))
      assert.strictEqual(forbidden._tag, "Forbidden")
      // the variant it serves is one of the deployment's account: unknown, or another account's, 404
      const bobs = yield* storedVariant(bob.client, bob.accountId)
      for (const application_variant_id of ["no-such-variant", variant]) {
        const unknown = yield* request("POST", "/v4/application-deployments", {
          key: bob.key,
          body: { name: "b", endpoint: "e", application_variant_id, is_active: true, account_id: bob.accountId }
        })
        assert.strictEqual(unknown.status, 404)
        assert.deepStrictEqual(unknown.body, { detail: `Application variant ${application_variant_id} not found` })
      }
      const own = yield* bob.client.applications.createDeployment({
        payload: { name: "b", endpoint: "e", application_variant_id: bobs.variant, is_active: true, account_id: bob.accountId }
      })
      const foreignList = yield* Effect.flip(bob.client.applications.listDeployments({ urlParams: { account_id: alice.accountId } }))
      assert.strictEqual(foreignList._tag, "Forbidden")

      assert.deepStrictEqual((yield* bob.client.applications.listDeployments({ urlParams: {} })).items.map((item) => item.id), [own.id])
      const alices = yield* alice.client.applications.listDeployments({ urlParams: {} })
      assert.deepStrictEqual(alices.items.map((item) => item.id), [deployment.id])
    }))

  it.effect("list pages newest first with page/limit and narrows by account_id", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const { variant } = yield* storedVariant(client, accountId)
      for (let i = 0; i < 5; i++) {
        yield* client.applications.createDeployment({
          payload: { name: `d${i}`, endpoint: "e", application_variant_id: variant, is_active: i % 2 === 0, account_id: accountId }
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

describe("application deployments written before migration 0021", () => {
  plain.effect("get the status column their documents hold: the engine finds those still PENDING on start", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateUpTo(20)
      const written = (id: string, status: string) =>
        sql`INSERT INTO application_deployments ${
          sql.insert({
            id,
            account_id: "a",
            created_at: "2026-01-01T00:00:00.000Z",
            doc: JSON.stringify({
              id,
              name: id,
              endpoint: "e",
              application_variant_id: "v",
              status,
              is_active: true,
              account_id: "a",
              created_by_user_id: "u",
              created_by_identity_type: "user",
              created_at: "2026-01-01T00:00:00.000Z"
            }),
            form: "older"
          })
        }`
      yield* written("d1", "PENDING")
      yield* written("d2", "READY")
      yield* written("d3", "PENDING")
      yield* migrateAll
      const rows = yield* sql<{ id: string; status: string }>`SELECT id, status FROM application_deployments ORDER BY id`
      assert.deepStrictEqual(rows.map((row) => [row.id, row.status]), [["d1", "PENDING"], ["d2", "READY"], ["d3", "PENDING"]])
      const repo = yield* Effect.provide(DeploymentsRepo, DeploymentsRepo.Default)
      assert.deepStrictEqual(yield* repo.pending, [
        { id: "d1", account_id: "a", run: 0 },
        { id: "d3", account_id: "a", run: 0 }
      ])
    }).pipe(Effect.provide(Layer.fresh(UnmigratedDatabaseTest))))
})
