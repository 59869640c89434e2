import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"
import { readyDeploymentOf, registerModel } from "./support/models.js"

layer(TestServerLive, { timeout: 60_000 })("model groups", (it) => {
  it.effect("create answers the group with audit fields from the key, and get/list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, client } = yield* provision()
      const created = yield* client.modelGroups.create({
        payload: { name: "llama family", account_id: accountId, description: "shared base" }
      })
      assert.strictEqual(created.name, "llama family")
      assert.strictEqual(created.description, "shared base")
      assert.strictEqual(created.account_id, accountId)
      assert.strictEqual(created.created_by_user_id, identityId)
      assert.strictEqual(created.created_by_identity_type, "user")
      assert.match(created.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const read = yield* client.modelGroups.get({ path: { model_group_id: created.id } })
      assert.deepStrictEqual(read, created)

      const page = yield* client.modelGroups.list({ urlParams: {} })
      assert.deepStrictEqual(page.items, [created])
      assert.strictEqual(page.total_item_count, 1)
      assert.strictEqual(page.current_page, 1)
      assert.strictEqual(page.items_per_page, 100)
    }))

  it.effect("an absent description is null on the wire", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const response = yield* request("POST", "/v4/model-groups", { key, body: { name: "g", account_id: accountId } })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.description, null)
      assert.isString(response.headers["x-request-id"])
    }))

  it.effect("validation: missing name and wrong type give 422 with exact loc, and nothing is written", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/model-groups", { key, body: { account_id: accountId } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "name"], type: "missing" }])

      const wrongType = yield* request("POST", "/v4/model-groups", {
        key,
        body: { name: 42, account_id: accountId, description: ["x"] }
      })
      assert.strictEqual(wrongType.status, 422)
      assert.deepStrictEqual(issues(wrongType), [
        { loc: ["body", "name"], type: "string_type" },
        { loc: ["body", "description"], type: "string_type" }
      ])

      const malformed = yield* request("POST", "/v4/model-groups", { key, body: "{\"name\":" })
      assert.strictEqual(malformed.status, 422)
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const page = yield* client.modelGroups.list({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("list query validation: page and limit out of range", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const response = yield* request("GET", "/v4/model-groups?page=0&limit=10001", { key })
      assert.strictEqual(response.status, 422)
      assert.deepStrictEqual(issues(response), [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "limit"], type: "range_error" }
      ])
    }))

  it.effect("401 without a key or with an unknown one; Bearer is accepted", () =>
    Effect.gen(function*() {
      const { key, accountId } = yield* provision()
      const none = yield* request("POST", "/v4/model-groups", { body: { name: "g", account_id: accountId } })
      assert.strictEqual(none.status, 401)
      assert.isString(none.body.detail)
      const wrong = yield* request("GET", "/v4/model-groups", { key: "pk_nope" })
      assert.strictEqual(wrong.status, 401)
      const bearer = yield* request("GET", "/v4/model-groups", { headers: { authorization: `Bearer ${key}` } })
      assert.strictEqual(bearer.status, 200)
    }))

  it.effect("404 for a missing id and for another account's group; 403 for another account_id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const group = yield* alice.client.modelGroups.create({ payload: { name: "a", account_id: alice.accountId } })

      const missing = yield* Effect.flip(bob.client.modelGroups.get({ path: { model_group_id: "no-such-id" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/model-groups/${group.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Model group ${group.id} not found` })

      const forbidden = yield* Effect.flip(
        bob.client.modelGroups.create({ payload: { name: "b", account_id: alice.accountId } })
      )
      assert.strictEqual(forbidden._tag, "Forbidden")
      const foreignList = yield* request("GET", `/v4/model-groups?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(foreignList.status, 403)
      const bobs = yield* bob.client.modelGroups.list({ urlParams: {} })
      assert.strictEqual(bobs.total_item_count, 0)
    }))

  it.effect("list pages newest first with page/limit", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const made = []
      for (let i = 0; i < 5; i++) {
        made.push(yield* client.modelGroups.create({ payload: { name: `g${i}`, account_id: accountId } }))
        yield* TestClock.adjust("1 millis")
      }
      const first = yield* client.modelGroups.list({ urlParams: { page: 1, limit: 2 } })
      assert.deepStrictEqual(first.items.map((g) => g.name), ["g4", "g3"])
      assert.strictEqual(first.total_item_count, 5)
      const last = yield* client.modelGroups.list({ urlParams: { page: 3, limit: 2 } })
      assert.deepStrictEqual(last.items.map((g) => g.name), ["g0"])
      const beyond = yield* client.modelGroups.list({ urlParams: { page: 9, limit: 2 } })
      assert.deepStrictEqual(beyond.items, [])
      assert.strictEqual(beyond.total_item_count, 5)
    }))

  it.effect("update changes the fields given, clears a description with null, and keeps the rest; 422 and 404 change nothing", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const group = yield* alice.client.modelGroups.create({ payload: { name: "g", account_id: alice.accountId, description: "d" } })
      const renamed = yield* alice.client.modelGroups.update({ path: { model_group_id: group.id }, payload: { name: "renamed" } })
      assert.deepStrictEqual({ ...renamed }, { ...group, name: "renamed" })
      const cleared = yield* alice.client.modelGroups.update({ path: { model_group_id: group.id }, payload: { description: null } })
      assert.strictEqual(cleared.description, null)
      assert.strictEqual(cleared.name, "renamed")

      const bad = yield* request("PATCH", `/v4/model-groups/${group.id}`, { key: alice.key, body: { name: "" } })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [{ loc: ["body", "name"], type: "string_too_short" }])
      const foreign = yield* request("PATCH", `/v4/model-groups/${group.id}`, { key: bob.key, body: { name: "taken" } })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(yield* alice.client.modelGroups.get({ path: { model_group_id: group.id } }), cleared)
    }))

  it.effect("a model is added to a group (leaving its former one); delete keeps the models, out of any group", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const first = yield* alice.client.modelGroups.create({ payload: { name: "first", account_id: alice.accountId } })
      const second = yield* alice.client.modelGroups.create({ payload: { name: "second", account_id: alice.accountId } })
      const model = yield* registerModel(alice, "m")
      const other = yield* registerModel(alice, "other")

      const added = yield* alice.client.modelGroups.addModel({ path: { model_group_id: first.id, model_instance_id: model } })
      assert.strictEqual(added.id, model)
      assert.strictEqual(added.model_group_id, first.id)
      const moved = yield* alice.client.modelGroups.addModel({ path: { model_group_id: second.id, model_instance_id: model } })
      assert.strictEqual(moved.model_group_id, second.id)
      yield* alice.client.modelGroups.addModel({ path: { model_group_id: second.id, model_instance_id: other } })
      const members = yield* alice.client.models.list({ urlParams: { model_group_id: second.id } })
      assert.sameMembers(members.items.map((m) => m.id), [model, other])

      // another account's model or group: 404 naming it, nothing changed
      const bobsModel = yield* registerModel(bob, "bobs")
      const foreignModel = yield* request("POST", `/v4/model-groups/${second.id}/models/${bobsModel}`, { key: alice.key })
      assert.strictEqual(foreignModel.status, 404)
      assert.deepStrictEqual(foreignModel.body, { detail: `Model ${bobsModel} not found` })
      const foreignGroup = yield* request("POST", `/v4/model-groups/${second.id}/models/${bobsModel}`, { key: bob.key })
      assert.strictEqual(foreignGroup.status, 404)
      assert.deepStrictEqual(foreignGroup.body, { detail: `Model group ${second.id} not found` })
      assert.strictEqual((yield* bob.client.models.get({ path: { model_id: bobsModel }, urlParams: {} })).model_group_id, null)

      const deleted = yield* alice.client.modelGroups.delete({ path: { model_group_id: second.id } })
      assert.deepStrictEqual({ ...deleted }, { count: 1, success: true })
      const gone = yield* request("GET", `/v4/model-groups/${second.id}`, { key: alice.key })
      assert.strictEqual(gone.status, 404)
      for (const id of [model, other]) {
        assert.strictEqual((yield* alice.client.models.get({ path: { model_id: id }, urlParams: {} })).model_group_id, null)
      }
      const again = yield* request("DELETE", `/v4/model-groups/${second.id}`, { key: alice.key })
      assert.strictEqual(again.status, 404)
      assert.strictEqual((yield* alice.client.modelGroups.list({ urlParams: {} })).total_item_count, 1)
    }))

  it.effect("usage statistics sum the executions of the group's models, in chunks; the three query fields are required", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const group = yield* caller.client.modelGroups.create({ payload: { name: "g", account_id: caller.accountId } })
      const inGroup = yield* registerModel(caller, "in")
      const outside = yield* registerModel(caller, "out")
      yield* caller.client.modelGroups.addModel({ path: { model_group_id: group.id, model_instance_id: inGroup } })
      const deployment = yield* readyDeploymentOf(caller, inGroup)
      const elsewhere = yield* readyDeploymentOf(caller, outside)
      const complete = (id: string, prompt: string) =>
        request("POST", `/v4/models/${id}/completions`, { key: caller.key, body: { prompt } })
      assert.strictEqual((yield* complete(deployment, "one two")).status, 200)
      assert.strictEqual((yield* complete(elsewhere, "not counted here")).status, 200)
      yield* TestClock.adjust("90 minutes")
      assert.strictEqual((yield* complete(deployment, "three")).status, 200)

      const usage = yield* caller.client.modelGroups.usage({
        path: { model_group_id: group.id },
        urlParams: { chunks: 2, start_date: new Date(0), end_date: new Date(7_200_000) }
      })
      assert.deepStrictEqual(usage.data.map((point) => [point.date, point.prompt_tokens, point.request_count]), [
        ["1970-01-01T00:00:00.000Z", 2, 1],
        ["1970-01-01T01:00:00.000Z", 1, 1]
      ])
      assert.strictEqual(usage.start_date, "1970-01-01T00:00:00.000Z")
      assert.strictEqual(usage.end_date, "1970-01-01T01:00:00.000Z")

      const missing = yield* request("GET", `/v4/model-groups/${group.id}/usage-statistics?chunks=2`, { key: caller.key })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["query", "start_date"], type: "missing" },
        { loc: ["query", "end_date"], type: "missing" }
      ])
      const other = yield* provision()
      const foreign = yield* request(
        "GET",
        `/v4/model-groups/${group.id}/usage-statistics?chunks=1&start_date=1970-01-01&end_date=1970-01-02`,
        { key: other.key }
      )
      assert.strictEqual(foreign.status, 404)
    }))
})

describe("service", () => {
  it.effect("health and the OpenAPI document answer without a key", () =>
    Effect.gen(function*() {
      const health = yield* request("GET", "/health")
      assert.strictEqual(health.status, 200)
      assert.deepStrictEqual(health.body, { status: "ok" })
      const openapi = yield* request("GET", "/openapi.json")
      assert.strictEqual(openapi.status, 200)
      assert.property(openapi.body.paths, "/v4/model-groups")
      const docs = yield* request("GET", "/docs")
      assert.strictEqual(docs.status, 200)
      const unknown = yield* request("GET", "/v4/unknown", { headers: { "x-request-id": "req-1" } })
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(unknown.headers["x-request-id"], "req-1")
    }).pipe(Effect.provide(TestServerLive)))
})
