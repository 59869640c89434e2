import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Redacted, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive, uuidPattern as uuid, isoPattern as iso } from "../src/testing.js"

const later = (at: string, millis: number) => new Date(Date.parse(at) + millis).toISOString()
const SECRET = "sk-live-7f3a9c1e-plaintext-must-not-leak"

const credentialKeys = [
  "created_at",
  "created_by_identity_type",
  "created_by_user_id",
  "credential_metadata",
  "description",
  "id",
  "name",
  "object",
  "type",
  "updated_at"
]

/** Every stored column of a credential row, as the database holds it. */
const rawRow = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<Record<string, unknown>>`SELECT * FROM credentials WHERE id = ${id}`)

const countRows = (accountId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM credentials WHERE account_id = ${accountId}`
  ).pipe(Effect.map((rows) => Number(rows[0]!.n)))

layer(TestServerLive)("credentials", (it) => {
  it.effect("create answers the credential without its secret; get, get by name and list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const response = yield* request("POST", "/v5/credentials", {
        key,
        body: {
          name: "openai-prod",
          type: "api_key",
          description: "production key",
          credential_metadata: { provider: "openai", scopes: ["chat"] },
          payload: SECRET,
          account_id: accountId,
          ignored_field: true
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.deepStrictEqual(Object.keys(created).sort(), credentialKeys)
      assert.match(created.id, uuid)
      assert.strictEqual(created.created_by_user_id, identityId)
      assert.strictEqual(created.created_by_identity_type, "user")
      assert.strictEqual(created.type, "api_key")
      assert.strictEqual(created.name, "openai-prod")
      assert.strictEqual(created.description, "production key")
      assert.deepStrictEqual(created.credential_metadata, { provider: "openai", scopes: ["chat"] })
      assert.match(created.created_at, iso)
      assert.strictEqual(created.updated_at, created.created_at)
      assert.strictEqual(created.object, "credential")
      assert.notInclude(JSON.stringify(response), SECRET)

      for (const path of [`/v5/credentials/${created.id}`, "/v5/credentials/name/openai-prod", "/v5/credentials"]) {
        const read = yield* request("GET", path, { key })
        assert.strictEqual(read.status, 200)
        assert.notInclude(JSON.stringify(read.body), SECRET)
        assert.deepStrictEqual(path === "/v5/credentials" ? read.body.items : read.body, path === "/v5/credentials" ? [created] : created)
      }
      const list = yield* client.credentials.list({ urlParams: {} })
      assert.strictEqual(list.total, 1)
      assert.strictEqual(list.has_more, false)
      assert.strictEqual(list.limit, 100)
      assert.strictEqual(list.object, "list")
      const byName = yield* client.credentials.getByName({ path: { credential_name: "openai-prod" }, urlParams: {} })
      assert.strictEqual(byName.id, created.id)
    }))

  it.effect("the SDK's create: name, payload, type (key or json), credential_metadata, description; no account_id", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const minimal = yield* request("POST", "/v5/credentials", { key, body: { name: "x", payload: "x", type: "key" } })
      assert.strictEqual(minimal.status, 200)
      assert.deepStrictEqual(Object.keys(minimal.body).sort(), credentialKeys)
      assert.strictEqual(minimal.body.type, "key")
      assert.strictEqual(minimal.body.description, null)
      assert.notInclude(JSON.stringify(minimal.body), "\"payload\"")
      const full = yield* request("POST", "/v5/credentials", {
        key,
        body: {
          name: "service-account",
          payload: "{\"client_email\":\"a@b\"}",
          type: "json",
          credential_metadata: { foo: "bar" },
          description: "description"
        }
      })
      assert.strictEqual(full.status, 200)
      assert.strictEqual(full.body.type, "json")
      assert.deepStrictEqual(full.body.credential_metadata, { foo: "bar" })
      assert.strictEqual(full.body.description, "description")
      // stored in the key's only account, sealed, and decrypted as `result`
      const rows = yield* rawRow(full.body.id)
      assert.strictEqual(rows[0]!.account_id, accountId)
      assert.notInclude(JSON.stringify(rows[0]), "client_email")
      const byId = yield* request("POST", `/v5/credentials/${full.body.id}/secret`, { key })
      assert.deepStrictEqual(byId.body, { result: "{\"client_email\":\"a@b\"}", object: "credential_secret" })
      const byName = yield* request("POST", "/v5/credentials/name/service-account/secret", { key })
      assert.strictEqual(byName.status, 200)
      assert.deepStrictEqual(byName.body, byId.body)
      assert.strictEqual(byName.headers["cache-control"], "no-store")
      const unknownName = yield* request("POST", "/v5/credentials/name/nope/secret", { key })
      assert.strictEqual(unknownName.status, 404)
      assert.deepStrictEqual(unknownName.body, { detail: "Credential named nope not found" })

      // PATCH takes `payload` too: the new value is sealed anew
      const patched = yield* request("PATCH", `/v5/credentials/${minimal.body.id}`, {
        key,
        body: { payload: "rotated", type: "json", name: "x2", description: "d", credential_metadata: { k: 1 } }
      })
      assert.strictEqual(patched.status, 200)
      assert.strictEqual(patched.body.type, "json")
      assert.strictEqual(patched.body.name, "x2")
      const rotated = yield* request("POST", `/v5/credentials/${minimal.body.id}/secret`, { key })
      assert.strictEqual(rotated.body.result, "rotated")
    }))

  it.effect("`secret` is still accepted as the older name of `payload`; `payload` wins when both are given", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const alias = yield* request("POST", "/v5/credentials", { key, body: { name: "old", type: "key", secret: "old-value" } })
      assert.strictEqual(alias.status, 200)
      assert.strictEqual((yield* request("POST", `/v5/credentials/${alias.body.id}/secret`, { key })).body.result, "old-value")
      const both = yield* request("POST", "/v5/credentials", {
        key,
        body: { name: "both", type: "key", payload: "canonical", secret: "alias" }
      })
      assert.strictEqual((yield* request("POST", `/v5/credentials/${both.body.id}/secret`, { key })).body.result, "canonical")
      const patched = yield* request("PATCH", `/v5/credentials/${alias.body.id}`, { key, body: { secret: "via-alias" } })
      assert.strictEqual(patched.status, 200)
      assert.strictEqual((yield* request("POST", `/v5/credentials/${alias.body.id}/secret`, { key })).body.result, "via-alias")
    }))

  it.effect("optional fields absent are null; account comes from the caller's only account", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const response = yield* request("POST", "/v5/credentials", { key, body: { name: "n", type: "t", payload: "s" } })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.description, null)
      assert.strictEqual(response.body.credential_metadata, null)
      const explicitNull = yield* request("POST", "/v5/credentials", {
        key,
        body: { name: "m", type: "t", payload: "s", description: null, credential_metadata: null, account_id: null }
      })
      assert.strictEqual(explicitNull.status, 200)
      assert.strictEqual(explicitNull.body.description, null)
    }))

  it.effect("the secret is sealed at rest and opened only by the secret endpoint, for the account's members", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const created = yield* alice.client.credentials.create({
        payload: { name: "db", type: "password", payload: Redacted.make(SECRET) }
      })
      const rows = yield* rawRow(created.id)
      assert.strictEqual(rows.length, 1)
      for (const value of Object.values(rows[0]!)) assert.notInclude(String(value), SECRET)
      assert.match(String(rows[0]!.secret_sealed), /^v1\.[A-Za-z0-9+/]+=*$/)
      // 12-byte IV + 16-byte tag + ciphertext as long as the plaintext
      assert.strictEqual(Buffer.from(String(rows[0]!.secret_sealed).slice(3), "base64").length, 12 + 16 + SECRET.length)

      const raw = yield* request("POST", `/v5/credentials/${created.id}/secret`, { key: alice.key })
      assert.strictEqual(raw.status, 200)
      assert.deepStrictEqual(raw.body, { result: SECRET, object: "credential_secret" })
      assert.strictEqual(raw.headers["cache-control"], "no-store")
      assert.match(raw.headers["content-type"]!, /^application\/json/)
      assert.isString(raw.headers["x-request-id"])
      const typed = yield* alice.client.credentials.secret({ path: { credential_id: created.id } })
      assert.strictEqual(Redacted.value(typed.result), SECRET)

      const foreign = yield* request("POST", `/v5/credentials/${created.id}/secret`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Credential ${created.id} not found` })
      const missing = yield* request("POST", "/v5/credentials/no-such-id/secret", { key: alice.key })
      assert.strictEqual(missing.status, 404)
      const anonymous = yield* request("POST", `/v5/credentials/${created.id}/secret`)
      assert.strictEqual(anonymous.status, 401)
      assert.notInclude(JSON.stringify([foreign.body, missing.body, anonymous.body]), SECRET)
    }))

  it.effect("a member added to the account can read the secret; another account's member cannot", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const carol = yield* provision()
      const accounts = yield* Accounts
      const created = yield* alice.client.credentials.create({
        payload: { name: "shared", type: "token", payload: Redacted.make("shh") }
      })
      const before = yield* request("POST", `/v5/credentials/${created.id}/secret`, { key: carol.key })
      assert.strictEqual(before.status, 404)
      yield* accounts.addMember(carol.identityId, alice.accountId)
      const after = yield* request("POST", `/v5/credentials/${created.id}/secret`, { key: carol.key })
      assert.deepStrictEqual(after.body, { result: "shh", object: "credential_secret" })
    }))

  it.effect("create validation: 422 with exact loc and type, and nothing written", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const missing = yield* request("POST", "/v5/credentials", { key, body: { description: "d" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "name"], type: "missing" },
        { loc: ["body", "type"], type: "missing" }
      ])
      // `payload` (or its older name `secret`) is checked once the shape is right
      const noPayload = yield* request("POST", "/v5/credentials", { key, body: { name: "n", type: "key" } })
      assert.strictEqual(noPayload.status, 422)
      assert.deepStrictEqual(issues(noPayload), [{ loc: ["body", "payload"], type: "missing" }])
      const nullPayload = yield* request("POST", "/v5/credentials", { key, body: { name: "n", type: "key", payload: null } })
      assert.deepStrictEqual(issues(nullPayload), [{ loc: ["body", "payload"], type: "missing" }])

      const wrong = yield* request("POST", "/v5/credentials", {
        key,
        body: { name: "", type: 7, payload: "", description: 1, credential_metadata: "x" }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "type"], type: "string_type" },
        { loc: ["body", "payload"], type: "string_too_short" },
        { loc: ["body", "description"], type: "string_type" },
        { loc: ["body", "credential_metadata"], type: "dict_type" }
      ])

      const malformed = yield* request("POST", "/v5/credentials", { key, body: "{\"name\":" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const wrongSecretOnly = yield* request("POST", "/v5/credentials", {
        key,
        body: { name: "x", type: "t", payload: { value: SECRET } }
      })
      assert.deepStrictEqual(issues(wrongSecretOnly), [{ loc: ["body", "payload"], type: "string_type" }])
      const wrongAlias = yield* request("POST", "/v5/credentials", { key, body: { name: "x", type: "t", secret: 5 } })
      assert.deepStrictEqual(issues(wrongAlias), [{ loc: ["body", "secret"], type: "string_type" }])
      assert.strictEqual(yield* countRows(accountId), 0)
    }))

  it.effect("401 without a key on every endpoint", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const created = yield* client.credentials.create({ payload: { name: "a", type: "t", payload: Redacted.make("s") } })
      const calls = [
        request("POST", "/v5/credentials", { body: { name: "b", type: "t", payload: "s" } }),
        request("GET", "/v5/credentials"),
        request("GET", `/v5/credentials/${created.id}`),
        request("GET", "/v5/credentials/name/a"),
        request("PATCH", `/v5/credentials/${created.id}`, { body: { description: "x" } }),
        request("DELETE", `/v5/credentials/${created.id}`),
        request("POST", `/v5/credentials/${created.id}/secret`),
        request("GET", "/v5/credentials", { key: "pk_unknown" })
      ]
      for (const call of calls) {
        const response = yield* call
        assert.strictEqual(response.status, 401)
        assert.isString(response.body.detail)
      }
      const unchanged = yield* client.credentials.get({ path: { credential_id: created.id } })
      assert.deepStrictEqual(unchanged, created)
    }))

  it.effect("names are unique per account (exactly as written): 409 on a duplicate, also under concurrency", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const first = yield* alice.client.credentials.create({
        payload: { name: "github", type: "token", payload: Redacted.make("one") }
      })
      const duplicate = yield* request("POST", "/v5/credentials", {
        key: alice.key,
        body: { name: "github", type: "other", payload: "two" }
      })
      assert.strictEqual(duplicate.status, 409)
      assert.deepStrictEqual(duplicate.body, { detail: "A credential named github already exists" })
      // final: clients that retry a 409 by default are told not to
      assert.strictEqual(duplicate.headers["x-should-retry"], "false")

      // another case is another name; another account has its own names
      const otherCase = yield* alice.client.credentials.create({
        payload: { name: "GitHub", type: "token", payload: Redacted.make("three") }
      })
      assert.strictEqual(otherCase.name, "GitHub")
      const elsewhere = yield* bob.client.credentials.create({
        payload: { name: "github", type: "token", payload: Redacted.make("four") }
      })
      assert.strictEqual(elsewhere.name, "github")

      // the duplicate did not replace the secret
      const secret = yield* alice.client.credentials.secret({ path: { credential_id: first.id } })
      assert.strictEqual(Redacted.value(secret.result), "one")

      // 20 concurrent creates of one new name: one wins, the rest are 409, never a 500
      const statuses = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) =>
          Effect.map(
            request("POST", "/v5/credentials", { key: alice.key, body: { name: "race", type: "t", secret: `s${i}` } }),
            (r) => r.status
          ),
        { concurrency: 20 }
      )
      assert.deepStrictEqual(statuses.filter((s) => s === 200).length, 1)
      assert.deepStrictEqual(statuses.filter((s) => s === 409).length, 19)
      assert.strictEqual(yield* countRows(alice.accountId), 3)
    }))

  it.effect("403 for an account_id the caller is not in, on create and on list", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const create = yield* request("POST", "/v5/credentials", {
        key: bob.key,
        body: { name: "x", type: "t", payload: "s", account_id: alice.accountId }
      })
      assert.strictEqual(create.status, 403)
      const list = yield* request("GET", `/v5/credentials?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(list.status, 403)
      const byName = yield* request("GET", `/v5/credentials/name/x?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(byName.status, 403)
      assert.strictEqual(yield* countRows(alice.accountId), 0)
    }))

  it.effect("get and get by name: 404 for a missing and for another account's credential", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const created = yield* alice.client.credentials.create({
        payload: { name: "only alice", type: "t", payload: Redacted.make("s") }
      })
      const missing = yield* Effect.flip(alice.client.credentials.get({ path: { credential_id: "nope" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v5/credentials/${created.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Credential ${created.id} not found` })

      // names are matched exactly and may need escaping in the path
      const encoded = yield* request("GET", `/v5/credentials/name/${encodeURIComponent("only alice")}`, { key: alice.key })
      assert.strictEqual(encoded.status, 200)
      assert.strictEqual(encoded.body.id, created.id)
      const otherCase = yield* request("GET", "/v5/credentials/name/ONLY%20ALICE", { key: alice.key })
      assert.strictEqual(otherCase.status, 404)
      const odd = yield* alice.client.credentials.create({
        payload: { name: "team/openai ü%", type: "t", payload: Redacted.make("s") }
      })
      const oddRead = yield* request("GET", `/v5/credentials/name/${encodeURIComponent("team/openai ü%")}`, {
        key: alice.key
      })
      assert.strictEqual(oddRead.body.id, odd.id)
      const foreignName = yield* request("GET", "/v5/credentials/name/only%20alice", { key: bob.key })
      assert.strictEqual(foreignName.status, 404)
      assert.deepStrictEqual(foreignName.body, { detail: "Credential named only alice not found" })
    }))

  it.effect("by name with several accounts: narrowed by account_id or x-selected-account-id; ambiguous is a 422", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const accounts = yield* Accounts
      yield* accounts.addMember(alice.identityId, bob.accountId)
      const inAlice = yield* alice.client.credentials.create({
        payload: { name: "same", type: "t", payload: Redacted.make("a"), account_id: alice.accountId }
      })
      yield* TestClock.adjust("1 millis")
      const inBob = yield* alice.client.credentials.create({
        payload: { name: "same", type: "t", payload: Redacted.make("b"), account_id: bob.accountId }
      })
      const narrowed = yield* alice.client.credentials.getByName({
        path: { credential_name: "same" },
        urlParams: { account_id: bob.accountId }
      })
      assert.strictEqual(narrowed.id, inBob.id)
      const selected = yield* request("GET", "/v5/credentials/name/same", {
        key: alice.key,
        headers: { "x-selected-account-id": bob.accountId }
      })
      assert.strictEqual(selected.body.id, inBob.id)
      const selectedSecret = yield* request("POST", "/v5/credentials/name/same/secret", {
        key: alice.key,
        headers: { "x-selected-account-id": alice.accountId }
      })
      assert.deepStrictEqual(selectedSecret.body, { result: "a", object: "credential_secret" })
      // the name is in both of alice's accounts and she selected none: she must select one
      for (const [method, path] of [["GET", "/v5/credentials/name/same"], ["POST", "/v5/credentials/name/same/secret"]] as const) {
        const ambiguous = yield* request(method, path, { key: alice.key })
        assert.strictEqual(ambiguous.status, 422)
        assert.deepStrictEqual(issues(ambiguous), [{ loc: ["header", "x-selected-account-id"], type: "missing" }])
        assert.include(ambiguous.body.detail[0].msg, "select one with x-selected-account-id")
      }
      // a name only one of her accounts has needs no selection
      const onlyBob = yield* alice.client.credentials.create({
        payload: { name: "bob only", type: "key", payload: Redacted.make("b2"), account_id: bob.accountId }
      })
      const found = yield* alice.client.credentials.getByName({ path: { credential_name: "bob only" }, urlParams: {} })
      assert.strictEqual(found.id, onlyBob.id)
      const foundSecret = yield* alice.client.credentials.secretByName({ path: { credential_name: "bob only" }, urlParams: {} })
      assert.strictEqual(Redacted.value(foundSecret.result), "b2")
      assert.strictEqual(inAlice.name, "same")
      // with several accounts and none named, a create must name one
      const unnamed = yield* request("POST", "/v5/credentials", { key: alice.key, body: { name: "z", type: "t", payload: "s" } })
      assert.strictEqual(unnamed.status, 422)
      assert.deepStrictEqual(issues(unnamed), [{ loc: ["body", "account_id"], type: "missing" }])
    }))

  it.effect("PATCH changes only the fields given, moves updated_at and re-encrypts a new secret", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const created = yield* client.credentials.create({
        payload: {
          name: "slack",
          type: "token",
          payload: Redacted.make("old-secret"),
          description: "bot",
          credential_metadata: { team: "a" }
        }
      })
      const sealedBefore = (yield* rawRow(created.id))[0]!.secret_sealed
      yield* TestClock.adjust("5 millis")

      const described = yield* request("PATCH", `/v5/credentials/${created.id}`, {
        key,
        body: { description: "bot v2", credential_metadata: { team: "b" } }
      })
      assert.strictEqual(described.status, 200)
      assert.deepStrictEqual(described.body, {
        ...created,
        description: "bot v2",
        credential_metadata: { team: "b" },
        updated_at: later(created.created_at, 5)
      })
      assert.strictEqual((yield* rawRow(created.id))[0]!.secret_sealed, sealedBefore)

      yield* TestClock.adjust("5 millis")
      const renamed = yield* client.credentials.update({
        path: { credential_id: created.id },
        payload: { name: "slack-bot", type: "oauth", payload: Redacted.make("new-secret"), description: null }
      })
      assert.strictEqual(renamed.name, "slack-bot")
      assert.strictEqual(renamed.type, "oauth")
      assert.strictEqual(renamed.description, null)
      assert.deepStrictEqual(renamed.credential_metadata, { team: "b" })
      assert.strictEqual(renamed.created_at, created.created_at)
      assert.strictEqual(renamed.updated_at, later(created.created_at, 10))
      const row = (yield* rawRow(created.id))[0]!
      assert.notStrictEqual(row.secret_sealed, sealedBefore)
      assert.notInclude(JSON.stringify(row), "new-secret")
      const secret = yield* client.credentials.secret({ path: { credential_id: created.id } })
      assert.strictEqual(Redacted.value(secret.result), "new-secret")

      const read = yield* client.credentials.get({ path: { credential_id: created.id } })
      assert.deepStrictEqual(read, renamed)
      const byNewName = yield* client.credentials.getByName({ path: { credential_name: "slack-bot" }, urlParams: {} })
      assert.strictEqual(byNewName.id, created.id)
      const byOldName = yield* request("GET", "/v5/credentials/name/slack", { key })
      assert.strictEqual(byOldName.status, 404)
      assert.notInclude(JSON.stringify(described.body), "old-secret")
    }))

  it.effect("PATCH: 422 with exact loc and type, 409 on a taken name, 404 missing and foreign; nothing changes", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const one = yield* alice.client.credentials.create({ payload: { name: "one", type: "t", payload: Redacted.make("1") } })
      yield* alice.client.credentials.create({ payload: { name: "two", type: "t", payload: Redacted.make("2") } })

      const invalid = yield* request("PATCH", `/v5/credentials/${one.id}`, {
        key: alice.key,
        body: { name: "", secret: 5, credential_metadata: [1] }
      })
      assert.strictEqual(invalid.status, 422)
      assert.deepStrictEqual(issues(invalid), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "secret"], type: "string_type" },
        { loc: ["body", "credential_metadata"], type: "dict_type" }
      ])
      const wrongTypes = yield* request("PATCH", `/v5/credentials/${one.id}`, {
        key: alice.key,
        body: { type: "", description: false }
      })
      assert.deepStrictEqual(issues(wrongTypes), [
        { loc: ["body", "type"], type: "string_too_short" },
        { loc: ["body", "description"], type: "string_type" }
      ])

      const taken = yield* request("PATCH", `/v5/credentials/${one.id}`, {
        key: alice.key,
        body: { name: "two", payload: "changed" }
      })
      assert.strictEqual(taken.status, 409)
      assert.deepStrictEqual(taken.body, { detail: "A credential named two already exists" })

      const missing = yield* request("PATCH", "/v5/credentials/nope", { key: alice.key, body: { description: "x" } })
      assert.strictEqual(missing.status, 404)
      const foreign = yield* request("PATCH", `/v5/credentials/${one.id}`, { key: bob.key, body: { description: "x" } })
      assert.strictEqual(foreign.status, 404)

      const unchanged = yield* alice.client.credentials.get({ path: { credential_id: one.id } })
      assert.deepStrictEqual(unchanged, one)
      const secret = yield* alice.client.credentials.secret({ path: { credential_id: one.id } })
      assert.strictEqual(Redacted.value(secret.result), "1")

      // keeping its own name is no conflict
      const same = yield* alice.client.credentials.update({ path: { credential_id: one.id }, payload: { name: "one" } })
      assert.strictEqual(same.name, "one")
    }))

  it.effect("DELETE removes the credential and its secret for good, answers it as it was, and frees the name", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const created = yield* alice.client.credentials.create({
        payload: { name: "gone", type: "t", payload: Redacted.make("s") }
      })
      const foreign = yield* request("DELETE", `/v5/credentials/${created.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.strictEqual((yield* rawRow(created.id)).length, 1)

      const deleted = yield* request("DELETE", `/v5/credentials/${created.id}`, { key: alice.key })
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual(deleted.body, { ...created })
      assert.strictEqual((yield* rawRow(created.id)).length, 0)

      for (
        const [method, path] of [
          ["GET", `/v5/credentials/${created.id}`],
          ["GET", "/v5/credentials/name/gone"],
          ["POST", `/v5/credentials/${created.id}/secret`],
          ["DELETE", `/v5/credentials/${created.id}`],
          ["PATCH", `/v5/credentials/${created.id}`]
        ] as const
      ) {
        const response = yield* request(method, path, { key: alice.key, ...(method === "PATCH" ? { body: {} } : {}) })
        assert.strictEqual(response.status, 404)
      }
      const list = yield* alice.client.credentials.list({ urlParams: {} })
      assert.strictEqual(list.total, 0)

      const reused = yield* alice.client.credentials.create({
        payload: { name: "gone", type: "t", payload: Redacted.make("again") }
      })
      assert.notStrictEqual(reused.id, created.id)
      const missing = yield* Effect.flip(alice.client.credentials.delete({ path: { credential_id: "nope" } }))
      assert.strictEqual(missing._tag, "NotFound")
    }))

  it.effect("list: cursor walk with a name filter, type filter, sort by name, and query validation", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const other = yield* provision()
      yield* other.client.credentials.create({ payload: { name: "prod-other", type: "api_key", payload: Redacted.make("s") } })
      const names = ["prod-a", "PROD-b", "staging-a", "prod_c", "proDd", "prod%e", "dev"]
      for (const [i, name] of names.entries()) {
        yield* client.credentials.create({
          payload: { name, type: i % 2 === 0 ? "api_key" : "password", payload: Redacted.make(`s${i}`) }
        })
        yield* TestClock.adjust("1 millis")
      }

      // newest first, two at a time, narrowed to names containing "prod" in any case
      const walked: Array<string> = []
      let after: string | undefined
      while (true) {
        const page = yield* client.credentials.list({
          urlParams: { name: "PROD", limit: 2, ...(after !== undefined ? { starting_after: after } : {}) }
        })
        assert.strictEqual(page.total, 5)
        walked.push(...page.items.map((c) => c.name))
        if (!page.has_more) break
        after = page.items[page.items.length - 1]!.id
      }
      assert.deepStrictEqual(walked, ["prod%e", "proDd", "prod_c", "PROD-b", "prod-a"])

      // % and _ are matched literally
      const percent = yield* client.credentials.list({ urlParams: { name: "d%" } })
      assert.deepStrictEqual(percent.items.map((c) => c.name), ["prod%e"])
      const underscore = yield* client.credentials.list({ urlParams: { name: "d_" } })
      assert.deepStrictEqual(underscore.items.map((c) => c.name), ["prod_c"])

      const passwords = yield* client.credentials.list({ urlParams: { type: "password", sort_by: "name", sort_order: "asc" } })
      assert.deepStrictEqual(passwords.items.map((c) => c.name), ["PROD-b", "prod_c", "prod%e"].sort())
      assert.strictEqual(passwords.total, 3)

      const invalid = yield* request("GET", "/v5/credentials?limit=0&sort_by=secret&sort_order=up", { key })
      assert.strictEqual(invalid.status, 422)
      assert.deepStrictEqual(issues(invalid), [
        { loc: ["query", "limit"], type: "range_error" },
        { loc: ["query", "sort_order"], type: "literal_error" },
        { loc: ["query", "sort_by"], type: "literal_error" }
      ])
      const badCursor = yield* request("GET", "/v5/credentials?starting_after=nope&limit=abc", { key })
      assert.deepStrictEqual(issues(badCursor), [{ loc: ["query", "limit"], type: "number_parsing" }])
      const unknownCursor = yield* request("GET", "/v5/credentials?starting_after=nope", { key })
      assert.deepStrictEqual(issues(unknownCursor), [{ loc: ["query", "starting_after"], type: "value_error" }])
    }))
})
