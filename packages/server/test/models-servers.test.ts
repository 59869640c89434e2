import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { registerModel } from "./support/models.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

/** A deployment of a model registered for it, in `caller`'s account. */
const deployment = (caller: Caller, name = "backing") =>
  Effect.flatMap(registerModel(caller), (model) =>
    caller.client.models.createDeployment({ path: { model_instance_id: model }, payload: { name } }))

const serve = (caller: Caller, body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const response = yield* request("POST", "/v4/serving", { key: caller.key, body })
    yield* TestClock.adjust("1 millis")
    return response
  })

const serverCount = (caller: Caller) =>
  Effect.map(caller.client.models.listServers({ urlParams: {} }), (page) => page.total_item_count)

layer(TestServerLive)("model servers", (it) => {
  it.effect("create answers every field of a model server; get, get by alias and list read it back", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const backing = yield* deployment(caller)
      const created = yield* caller.client.models.createServer({
        payload: { name: "chat server", model_deployment_id: backing.id, alias: "chat-prod", account_id: caller.accountId }
      })
      assert.match(created.model_server_id, uuid)
      assert.strictEqual(created.name, "chat server")
      assert.strictEqual(created.account_id, caller.accountId)
      assert.strictEqual(created.model_deployment_id, backing.id)
      assert.strictEqual(created.alias, "chat-prod")
      assert.strictEqual(created.created_by_user_id, caller.identityId)
      assert.strictEqual(created.created_by_identity_type, "user")
      assert.strictEqual(created.created_at, "1970-01-01T00:00:00.000Z")

      const raw = yield* request("GET", `/v4/serving/${created.model_server_id}`, { key: caller.key })
      assert.strictEqual(raw.status, 200)
      assert.deepStrictEqual(raw.body, {
        model_server_id: created.model_server_id,
        name: "chat server",
        account_id: caller.accountId,
        model_deployment_id: backing.id,
        alias: "chat-prod",
        created_by_user_id: caller.identityId,
        created_by_identity_type: "user",
        created_at: "1970-01-01T00:00:00.000Z"
      })

      const read = yield* caller.client.models.getServer({ path: { model_server_id: created.model_server_id } })
      assert.deepStrictEqual(read, created)
      const byAlias = yield* caller.client.models.getServerByAlias({ path: { alias: "chat-prod" }, urlParams: {} })
      assert.deepStrictEqual(byAlias, created)
      const page = yield* caller.client.models.listServers({ urlParams: {} })
      assert.deepStrictEqual(page, { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 })
    }))

  it.effect("without an alias the field is null, and several servers may have none", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const backing = yield* deployment(caller)
      const first = yield* serve(caller, { name: "one", model_deployment_id: backing.id })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.body.alias, null)
      assert.strictEqual(first.body.account_id, caller.accountId)
      const second = yield* serve(caller, { name: "two", model_deployment_id: backing.id, alias: null, unknown: true })
      assert.strictEqual(second.status, 200)
      assert.strictEqual(second.body.alias, null)
      assert.notProperty(second.body, "unknown")
      const page = yield* caller.client.models.listServers({ urlParams: {} })
      assert.deepStrictEqual(page.items.map((s) => s.name), ["two", "one"])
    }))

  it.effect("create validation: exact loc and type, and nothing is written", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const backing = yield* deployment(caller)
      const missing = yield* serve(caller, {})
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "name"], type: "missing" },
        { loc: ["body", "model_deployment_id"], type: "missing" }
      ])
      const wrongTypes = yield* serve(caller, { name: ["x"], model_deployment_id: 5, alias: 1, account_id: false })
      assert.deepStrictEqual(issues(wrongTypes), [
        { loc: ["body", "name"], type: "string_type" },
        { loc: ["body", "model_deployment_id"], type: "string_type" },
        { loc: ["body", "alias"], type: "string_type" },
        { loc: ["body", "account_id"], type: "string_type" }
      ])
      const badAlias = yield* serve(caller, { name: "", model_deployment_id: backing.id, alias: "a/b" })
      assert.deepStrictEqual(issues(badAlias), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "alias"], type: "value_error" }
      ])
      const emptyAlias = yield* serve(caller, { name: "s", model_deployment_id: backing.id, alias: "" })
      assert.deepStrictEqual(issues(emptyAlias), [{ loc: ["body", "alias"], type: "string_too_short" }])
      const malformed = yield* request("POST", "/v4/serving", { key: caller.key, body: "[" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])
      const badPage = yield* request("GET", "/v4/serving?page=x&limit=0", { key: caller.key })
      assert.deepStrictEqual(issues(badPage), [
        { loc: ["query", "page"], type: "number_parsing" },
        { loc: ["query", "limit"], type: "range_error" }
      ])
      assert.strictEqual(yield* serverCount(caller), 0)
    }))

  it.effect("the backing deployment must exist in the server's account, else 404 naming it", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const alices = yield* deployment(alice)

      const missing = yield* serve(bob, { name: "s", model_deployment_id: "no-such-deployment" })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, { detail: "Model deployment no-such-deployment not found" })
      const foreign = yield* serve(bob, { name: "s", model_deployment_id: alices.id, alias: "x" })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Model deployment ${alices.id} not found` })
      const typed = yield* Effect.flip(bob.client.models.createServer({ payload: { name: "s", model_deployment_id: alices.id } }))
      assert.strictEqual(typed._tag, "NotFound")

      // 403 before 404: an account that is not the caller's
      const forbidden = yield* serve(bob, { name: "s", model_deployment_id: "no-such", account_id: alice.accountId })
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual(yield* serverCount(bob), 0)
      assert.strictEqual(yield* serverCount(alice), 0)
    }))

  it.effect("a deployment of another of the caller's accounts is a 404 for a server in this account", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      yield* Effect.flatMap(Accounts, (accounts) => accounts.addMember(caller.identityId, other.accountId))
      const model = yield* registerModel({ ...caller, accountId: other.accountId })
      const inOther = yield* caller.client.models.createDeployment({
        path: { model_instance_id: model },
        payload: { name: "d", account_id: other.accountId }
      })
      const crossed = yield* serve(caller, { name: "s", model_deployment_id: inOther.id, account_id: caller.accountId })
      assert.strictEqual(crossed.status, 404)
      const same = yield* serve(caller, { name: "s", model_deployment_id: inOther.id, account_id: other.accountId })
      assert.strictEqual(same.status, 200)
      assert.strictEqual(same.body.account_id, other.accountId)
    }))

  it.effect("an alias is unique per account: 409 on a duplicate (even concurrent), free in another account", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const backing = yield* deployment(alice)
      const first = yield* serve(alice, { name: "one", model_deployment_id: backing.id, alias: "shared" })
      assert.strictEqual(first.status, 200)

      const duplicate = yield* serve(alice, { name: "two", model_deployment_id: backing.id, alias: "shared" })
      assert.strictEqual(duplicate.status, 409)
      assert.deepStrictEqual(duplicate.body, { detail: "A model server with alias shared already exists" })
      const typed = yield* Effect.flip(
        alice.client.models.createServer({ payload: { name: "two", model_deployment_id: backing.id, alias: "shared" } })
      )
      assert.strictEqual(typed._tag, "Conflict")

      // 404 comes before 409
      const missingAndDuplicate = yield* serve(alice, { name: "two", model_deployment_id: "nope", alias: "shared" })
      assert.strictEqual(missingAndDuplicate.status, 404)

      // case matters: a different alias
      const otherCase = yield* serve(alice, { name: "three", model_deployment_id: backing.id, alias: "Shared" })
      assert.strictEqual(otherCase.status, 200)

      const bobsBacking = yield* deployment(bob)
      const inOtherAccount = yield* serve(bob, { name: "bob", model_deployment_id: bobsBacking.id, alias: "shared" })
      assert.strictEqual(inOtherAccount.status, 200)

      const racers = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) =>
          request("POST", "/v4/serving", {
            key: alice.key,
            body: { name: `racer ${i}`, model_deployment_id: backing.id, alias: "race" }
          })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(racers.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409])

      const servers = yield* alice.client.models.listServers({ urlParams: {} })
      assert.deepStrictEqual(servers.items.map((s) => s.alias).sort(), ["Shared", "race", "shared"])
      const winner = yield* alice.client.models.getServerByAlias({ path: { alias: "race" }, urlParams: {} })
      assert.strictEqual(winner.name, racers.find((r) => r.status === 200)!.body.name)
    }))

  it.effect("get by alias: another account's alias is a 404, account_id and x-selected-account-id narrow", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const backing = yield* deployment(alice)
      const spaced = yield* serve(alice, { name: "spaced", model_deployment_id: backing.id, alias: "my model" })
      assert.strictEqual(spaced.status, 200)
      // the SDK's path (`alias.retrieve`) and the kit's earlier one answer alike
      const prefixes = ["/v4/serving/a", "/v4/serving/alias"]
      for (const prefix of prefixes) {
        const read = yield* request("GET", `${prefix}/my%20model`, { key: alice.key })
        assert.strictEqual(read.status, 200, prefix)
        assert.deepStrictEqual(read.body, spaced.body)

        const foreign = yield* request("GET", `${prefix}/my%20model`, { key: bob.key })
        assert.strictEqual(foreign.status, 404)
        assert.deepStrictEqual(foreign.body, { detail: "Model server with alias my model not found" })
        const forbidden = yield* request("GET", `${prefix}/my%20model?account_id=${alice.accountId}`, { key: bob.key })
        assert.strictEqual(forbidden.status, 403)
      }
      for (const get of [alice.client.models.getServerByAlias, alice.client.models.getServerByAliasLegacy]) {
        const missing = yield* Effect.flip(get({ path: { alias: "nope" }, urlParams: {} }))
        assert.strictEqual(missing._tag, "NotFound")
      }

      // the same alias in two of the caller's accounts: the filter picks, else the oldest
      yield* Effect.flatMap(Accounts, (accounts) => accounts.addMember(alice.identityId, bob.accountId))
      const bobsBacking = yield* deployment(bob)
      const newer = yield* serve(bob, { name: "newer", model_deployment_id: bobsBacking.id, alias: "my model" })
      assert.strictEqual(newer.status, 200)
      for (const prefix of prefixes) {
        const unfiltered = yield* request("GET", `${prefix}/my%20model`, { key: alice.key })
        assert.strictEqual(unfiltered.body.name, "spaced")
        const filtered = yield* request("GET", `${prefix}/my%20model?account_id=${bob.accountId}`, { key: alice.key })
        assert.strictEqual(filtered.body.name, "newer")
        const selected = yield* request("GET", `${prefix}/my%20model`, {
          key: alice.key,
          headers: { "x-selected-account-id": bob.accountId }
        })
        assert.strictEqual(selected.body.name, "newer")
      }

      // "alias" or "a" alone is an id: there is no such server
      for (const bare of ["/v4/serving/alias", "/v4/serving/a"]) {
        assert.strictEqual((yield* request("GET", bare, { key: alice.key })).status, 404)
      }
    }))

  it.effect("401 without a key on every endpoint, and nothing is written", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const backing = yield* deployment(caller)
      const made = yield* serve(caller, { name: "s", model_deployment_id: backing.id, alias: "a" })
      for (
        const [method, path] of [
          ["POST", "/v4/serving"],
          ["GET", "/v4/serving"],
          ["GET", `/v4/serving/${made.body.model_server_id}`],
          ["GET", "/v4/serving/alias/a"]
        ] as const
      ) {
        const none = yield* request(method, path, method === "POST" ? { body: { name: "x", model_deployment_id: backing.id } } : {})
        assert.strictEqual(none.status, 401, `${method} ${path}`)
        assert.isString(none.body.detail)
      }
      const wrong = yield* request("POST", "/v4/serving", { key: "pk_bad", body: { name: "x", model_deployment_id: backing.id } })
      assert.strictEqual(wrong.status, 401)
      assert.strictEqual(yield* serverCount(caller), 1)
    }))

  it.effect("404 for a missing server and another account's; 403 on another account's list", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const backing = yield* deployment(alice)
      const made = yield* serve(alice, { name: "s", model_deployment_id: backing.id })

      const missing = yield* Effect.flip(bob.client.models.getServer({ path: { model_server_id: "no-such" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/serving/${made.body.model_server_id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Model server ${made.body.model_server_id} not found` })
      // a deployment id is not a server id
      const wrongKind = yield* request("GET", `/v4/serving/${backing.id}`, { key: alice.key })
      assert.strictEqual(wrongKind.status, 404)

      const foreignList = yield* request("GET", `/v4/serving?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(foreignList.status, 403)
      assert.strictEqual(yield* serverCount(bob), 0)
    }))

  it.effect("the list pages newest first", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const backing = yield* deployment(caller)
      for (let i = 0; i < 5; i++) yield* serve(caller, { name: `s${i}`, model_deployment_id: backing.id, alias: `a${i}` })
      const first = yield* caller.client.models.listServers({ urlParams: { page: 1, limit: 2 } })
      assert.deepStrictEqual(first.items.map((s) => s.name), ["s4", "s3"])
      assert.strictEqual(first.total_item_count, 5)
      assert.strictEqual(first.items_per_page, 2)
      const last = yield* caller.client.models.listServers({ urlParams: { page: 3, limit: 2, account_id: caller.accountId } })
      assert.deepStrictEqual(last.items.map((s) => s.name), ["s0"])
      const beyond = yield* caller.client.models.listServers({ urlParams: { page: 4, limit: 2 } })
      assert.deepStrictEqual(beyond.items, [])
      assert.strictEqual(beyond.total_item_count, 5)
    }))

  it.effect("the OpenAPI document describes every endpoint of the family with its parameters", () =>
    Effect.gen(function*() {
      const openapi = yield* request("GET", "/openapi.json")
      assert.strictEqual(openapi.status, 200)
      for (
        const path of [
          "/v4/models/{model_instance_id}/deployments",
          "/v4/models/{model_instance_id}/deployments/{model_deployment_id}",
          "/v4/model-deployments",
          "/v4/model-deployments/{model_deployment_id}",
          "/v4/serving",
          "/v4/serving/{model_server_id}",
          "/v4/serving/alias/{alias}"
        ]
      ) {
        assert.property(openapi.body.paths, path)
      }
      const parameters = openapi.body.paths["/v4/model-deployments"].get.parameters.map((p: any) => p.name)
      assert.deepStrictEqual(parameters, ["page", "limit", "account_id", "sort_by"])
    }))

  it.effect("PUT backend serves another deployment (the old one kept); rollback serves it again, in order; 409 with nothing to roll back", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const [first, second, third] = [yield* deployment(caller, "v1"), yield* deployment(caller, "v2"), yield* deployment(caller, "v3")]
      const theirs = yield* deployment(other, "theirs")
      const server = (yield* serve(caller, { name: "s", model_deployment_id: first.id, alias: "prod" })).body
      const path = `/v4/serving/${server.model_server_id}`

      // the deployment it serves, as the SDK's model_servers.deployment.retrieve reads it
      const serving = yield* request("GET", `${path}/deployment`, { key: caller.key })
      assert.deepStrictEqual([serving.status, serving.body], [200, { model_deployment_id: first.id }])
      assert.strictEqual((yield* request("GET", `${path}/deployment`, { key: other.key })).status, 404)

      const nothing = yield* request("POST", `${path}/rollback`, { key: caller.key })
      assert.deepStrictEqual([nothing.status, nothing.body], [409, {
        detail: `Model server ${server.model_server_id} has no earlier deployment to roll back to`
      }])
      const changed = yield* request("PUT", `${path}/backend`, { key: caller.key, body: { new_model_deployment_id: second.id } })
      assert.deepStrictEqual([changed.status, changed.body], [200, {
        account_id: caller.accountId,
        model_deployment_id: second.id,
        model_server_id: server.model_server_id,
        name: "s",
        new_model_deployment_id: second.id,
        old_model_deployment_id: first.id,
        alias: "prod"
      }])
      const typed = yield* caller.client.models.updateServerBackend({
        path: { model_server_id: server.model_server_id },
        payload: { new_model_deployment_id: third.id }
      })
      assert.strictEqual(typed.old_model_deployment_id, second.id)
      assert.strictEqual((yield* caller.client.models.getServerByAlias({ path: { alias: "prod" }, urlParams: {} })).model_deployment_id, third.id)
      const moved = yield* caller.client.models.getServerDeployment({ path: { model_server_id: server.model_server_id } })
      assert.strictEqual(moved.model_deployment_id, third.id)

      // another account's deployment, or a missing one: 404, nothing changes; a bad body: 422
      const foreign = yield* request("PUT", `${path}/backend`, { key: caller.key, body: { new_model_deployment_id: theirs.id } })
      assert.deepStrictEqual([foreign.status, foreign.body], [404, { detail: `Model deployment ${theirs.id} not found` }])
      assert.strictEqual((yield* request("PUT", `${path}/backend`, { key: caller.key, body: {} })).status, 422)
      assert.strictEqual((yield* request("PUT", `${path}/backend`, { key: other.key, body: { new_model_deployment_id: theirs.id } })).status, 404)
      assert.strictEqual((yield* request("POST", `${path}/rollback`, { key: other.key })).status, 404)

      const back = yield* request("POST", `${path}/rollback`, { key: caller.key })
      assert.deepStrictEqual([back.status, back.body], [200, { from_deployment: third.id, rolled_back_to_deployment: second.id }])
      const backAgain = yield* caller.client.models.rollbackServer({ path: { model_server_id: server.model_server_id } })
      assert.deepStrictEqual({ ...backAgain }, { from_deployment: second.id, rolled_back_to_deployment: first.id })
      assert.strictEqual((yield* request("GET", path, { key: caller.key })).body.model_deployment_id, first.id)
      assert.strictEqual((yield* request("POST", `${path}/rollback`, { key: caller.key })).status, 409)
    }))
})
