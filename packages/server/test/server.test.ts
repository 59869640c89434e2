import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { bootstrap } from "../src/bootstrap.js"
import { Ids } from "../src/platform/Ids.js"
import { DatabaseTest } from "../src/testDatabase.js"
import { provision, request, TestServerLive } from "../src/testing.js"

const AccountsMemory = Accounts.Default.pipe(Layer.provideMerge(Ids.Live), Layer.provideMerge(DatabaseTest))
const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("bootstrap", () => {
  it.effect("an empty database gets one account and one key; a second start adds nothing", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      assert.isTrue(yield* accounts.isEmpty)
      yield* bootstrap.pipe(withEnv({}))
      assert.isFalse(yield* accounts.isEmpty)
      const sql = yield* SqlClient.SqlClient
      const count = () => Effect.map(sql<{ n: number }>`SELECT COUNT(*) AS n FROM api_keys`, (rows) => Number(rows[0]!.n))
      assert.strictEqual(yield* count(), 1)
      yield* bootstrap.pipe(withEnv({}))
      assert.strictEqual(yield* count(), 1)
    }).pipe(Effect.provide(AccountsMemory)))

  it.effect("PLATFORM_API_KEY + PLATFORM_ACCOUNT_ID make sure the key exists for a user of that account", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const env = withEnv({ PLATFORM_API_KEY: "pk_configured", PLATFORM_ACCOUNT_ID: "acct-1" })
      yield* bootstrap.pipe(env)
      yield* bootstrap.pipe(env) // idempotent
      const caller = yield* accounts.findCaller("pk_configured")
      assert.isTrue(Option.isSome(caller))
      const value = Option.getOrThrow(caller)
      assert.deepStrictEqual(value.accountIds, ["acct-1"])
      assert.strictEqual(value.identityType, "user")
      // a second account for the same key is added as a membership
      yield* bootstrap.pipe(withEnv({ PLATFORM_API_KEY: "pk_configured", PLATFORM_ACCOUNT_ID: "acct-2" }))
      const both = Option.getOrThrow(yield* accounts.findCaller("pk_configured"))
      assert.sameMembers([...both.accountIds], ["acct-1", "acct-2"])
    }).pipe(Effect.provide(AccountsMemory)))

  it.effect("keys are stored hashed and a revoked key is refused at once", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const made = yield* accounts.provisionUser({ key: "pk_plain_text_key" })
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ key_hash: string }>`SELECT key_hash FROM api_keys`
      assert.isFalse(rows.some((r) => r.key_hash.includes("pk_plain_text_key")))
      yield* accounts.revokeKey("pk_plain_text_key")
      assert.isTrue(Option.isNone(yield* accounts.findCaller("pk_plain_text_key")))
      void made
    }).pipe(Effect.provide(AccountsMemory)))
})

layer(TestServerLive)("request handling", (it) => {
  it.effect("x-request-id is echoed, or made when absent", () =>
    Effect.gen(function*() {
      const echoed = yield* request("GET", "/health", { headers: { "x-request-id": "abc-123" } })
      assert.strictEqual(echoed.headers["x-request-id"], "abc-123")
      const made = yield* request("GET", "/health")
      assert.match(made.headers["x-request-id"]!, /^[0-9a-f-]{36}$/)
    }))

  it.effect("a body over 1 MiB is a 413 and writes nothing", () =>
    Effect.gen(function*() {
      const { key, accountId, client } = yield* provision()
      const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), account_id: accountId })
      const response = yield* request("POST", "/v4/model-groups", { key, body: big })
      assert.strictEqual(response.status, 413)
      assert.isString(response.body.detail)
      assert.strictEqual((yield* client.modelGroups.list({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("the key is checked before the body: 401 wins over 422", () =>
    Effect.gen(function*() {
      const response = yield* request("POST", "/v4/model-groups", { body: "{not json" })
      assert.strictEqual(response.status, 401)
    }))

  it.effect("401 says whether the key was missing or wrong, in either header", () =>
    Effect.gen(function*() {
      const missing = yield* request("GET", "/v4/model-groups")
      assert.strictEqual(missing.status, 401)
      assert.match(missing.body.detail, /^Missing API key/)
      const wrongHeader = yield* request("GET", "/v4/model-groups", { headers: { "x-api-key": "pk_wrong" } })
      assert.deepStrictEqual([wrongHeader.status, wrongHeader.body], [401, { detail: "Invalid API key" }])
      const wrongBearer = yield* request("GET", "/v4/model-groups", { headers: { authorization: "Bearer pk_wrong" } })
      assert.deepStrictEqual([wrongBearer.status, wrongBearer.body], [401, { detail: "Invalid API key" }])
      const notBearer = yield* request("GET", "/v4/model-groups", { headers: { authorization: "Basic abc" } })
      assert.deepStrictEqual([notBearer.status, notBearer.body], [401, { detail: "Invalid API key" }])
    }))

  it.effect("x-selected-account-id must be one of the caller's accounts", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const response = yield* request("GET", "/v4/model-groups", {
        key: alice.key,
        headers: { "x-selected-account-id": bob.accountId }
      })
      assert.strictEqual(response.status, 403)
      const own = yield* request("GET", "/v4/model-groups", {
        key: alice.key,
        headers: { "x-selected-account-id": alice.accountId }
      })
      assert.strictEqual(own.status, 200)
    }))
})
