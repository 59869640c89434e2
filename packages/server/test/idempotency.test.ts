import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, TestClock } from "effect"
import { isRecorded } from "../src/http/idempotency.js"
import { IdempotencyStore } from "../src/idempotency/IdempotencyStore.js"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

const rowsFor = (identityId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ idempotency_key: string; state: string; status: number | null }>`
      SELECT idempotency_key, state, status FROM idempotency_keys WHERE identity_id = ${identityId}`)

const groupCount = (key: string) =>
  Effect.map(request("GET", "/v4/model-groups", { key }), (response) => response.body.total_item_count as number)

describe("which responses are recorded", () => {
  it("2xx and final 4xx answers are; 401, 408, 413, 422, 429 and 5xx are not", () => {
    for (const status of [200, 201, 204, 400, 403, 404, 409]) assert.isTrue(isRecorded(status), String(status))
    for (const status of [401, 408, 413, 422, 429, 500, 502, 503, 504]) assert.isFalse(isRecorded(status), String(status))
  })
})

layer(TestServerLive)("Idempotency-Key", (it) => {
  it.effect("a retry with the same key and body answers the first response again; one entity is made", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision()
      const headers = { "idempotency-key": "create-llama-1" }
      const body = { name: "llama", account_id: accountId }
      const first = yield* request("POST", "/v4/model-groups", { key, body, headers })
      assert.strictEqual(first.status, 200)
      assert.isUndefined(first.headers["idempotent-replayed"])

      const again = yield* request("POST", "/v4/model-groups", { key, body, headers })
      assert.strictEqual(again.status, 200)
      assert.deepStrictEqual(again.body, first.body)
      assert.strictEqual(again.headers["idempotent-replayed"], "true")
      assert.strictEqual(again.headers["content-type"], first.headers["content-type"])
      assert.notStrictEqual(again.headers["x-request-id"], first.headers["x-request-id"])

      // the same JSON value with keys in another order and other whitespace is the same request
      const reordered = yield* request("POST", "/v4/model-groups", {
        key,
        body: `{ "account_id": "${accountId}",\n  "name": "llama" }`,
        headers
      })
      assert.strictEqual(reordered.headers["idempotent-replayed"], "true")
      assert.strictEqual(reordered.body.id, first.body.id)

      // the same identity presenting its key as a bearer token shares the key
      const bearer = yield* request("POST", "/v4/model-groups", {
        body,
        headers: { ...headers, authorization: `Bearer ${key}` }
      })
      assert.strictEqual(bearer.body.id, first.body.id)

      assert.strictEqual(yield* groupCount(key), 1)
      assert.deepStrictEqual(yield* rowsFor(identityId), [{ idempotency_key: "create-llama-1", state: "done", status: 200 }])
    }))

  it.effect("a credential's secret is never recorded: a retry answers what the credential holds now, or 404 once it is gone", () =>
    Effect.gen(function*() {
      const { identityId, key } = yield* provision()
      const created = yield* request("POST", "/v5/credentials", { key, body: { name: "upstream", type: "key", payload: "first-secret" } })
      assert.strictEqual(created.status, 200)
      const id = created.body.id as string
      const headers = { "idempotency-key": "reveal-1" }
      const byNameHeaders = { "idempotency-key": "reveal-by-name-1" }
      const first = yield* request("POST", `/v5/credentials/${id}/secret`, { key, headers })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.body.result, "first-secret")
      assert.strictEqual(first.headers["cache-control"], "no-store")
      const firstByName = yield* request("POST", "/v5/credentials/name/upstream/secret", { key, headers: byNameHeaders })
      assert.strictEqual(firstByName.body.result, "first-secret")
      // nothing of either answer is kept for a replay
      assert.deepStrictEqual(yield* rowsFor(identityId), [])
      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM idempotency_keys WHERE body LIKE ${"%first-secret%"}`
      assert.strictEqual(Number(stored[0]!.n), 0)

      // rotated: the retry is performed again and answers the secret the credential holds now
      const rotated = yield* request("PATCH", `/v5/credentials/${id}`, { key, body: { payload: "second-secret" } })
      assert.strictEqual(rotated.status, 200)
      for (const [target, h] of [[`/v5/credentials/${id}/secret`, headers], ["/v5/credentials/name/upstream/secret", byNameHeaders]] as const) {
        const again = yield* request("POST", target, { key, headers: h })
        assert.strictEqual(again.status, 200)
        assert.strictEqual(again.body.result, "second-secret")
        assert.isUndefined(again.headers["idempotent-replayed"])
      }

      // deleted: the retry is a 404, never the secret it had
      assert.strictEqual((yield* request("DELETE", `/v5/credentials/${id}`, { key })).status, 200)
      const gone = yield* request("POST", `/v5/credentials/${id}/secret`, { key, headers })
      assert.strictEqual(gone.status, 404)
      const goneByName = yield* request("POST", "/v5/credentials/name/upstream/secret", { key, headers: byNameHeaders })
      assert.strictEqual(goneByName.status, 404)
    }))

  it.effect("the same key with another body, path or selected account is a 422 on the header", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const headers = { "idempotency-key": "k-mismatch" }
      const first = yield* request("POST", "/v4/model-groups", { key, body: { name: "a", account_id: accountId }, headers })
      assert.strictEqual(first.status, 200)

      const otherBody = yield* request("POST", "/v4/model-groups", { key, body: { name: "b", account_id: accountId }, headers })
      assert.strictEqual(otherBody.status, 422)
      assert.deepStrictEqual(issues(otherBody), [{ loc: ["header", "idempotency-key"], type: "idempotency_key_reused" }])

      const otherPath = yield* request("POST", "/v5/evaluations", { key, body: { name: "a", account_id: accountId }, headers })
      assert.strictEqual(otherPath.status, 422)
      assert.deepStrictEqual(issues(otherPath), [{ loc: ["header", "idempotency-key"], type: "idempotency_key_reused" }])

      const otherAccount = yield* request("POST", "/v4/model-groups", {
        key,
        body: { name: "a", account_id: accountId },
        headers: { ...headers, "x-selected-account-id": accountId }
      })
      assert.strictEqual(otherAccount.status, 422)
      assert.strictEqual(yield* groupCount(key), 1)
    }))

  it.effect("different identities use the same key independently", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const headers = { "idempotency-key": "shared-key" }
      const a = yield* request("POST", "/v4/model-groups", { key: alice.key, body: { name: "g", account_id: alice.accountId }, headers })
      const b = yield* request("POST", "/v4/model-groups", { key: bob.key, body: { name: "g", account_id: bob.accountId }, headers })
      assert.strictEqual(a.status, 200)
      assert.strictEqual(b.status, 200)
      assert.notStrictEqual(a.body.id, b.body.id)
      assert.isUndefined(b.headers["idempotent-replayed"])
      assert.strictEqual(b.body.account_id, bob.accountId)
    }))

  it.effect("a key expires 24 h after its first request: then it performs again, and old rows are purged", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision()
      const headers = { "idempotency-key": "daily" }
      const body = { name: "g", account_id: accountId }
      const first = yield* request("POST", "/v4/model-groups", { key, body, headers })
      yield* TestClock.adjust("23 hours")
      const replayed = yield* request("POST", "/v4/model-groups", { key, body, headers })
      assert.strictEqual(replayed.body.id, first.body.id)

      yield* TestClock.adjust("1 hours")
      const fresh = yield* request("POST", "/v4/model-groups", { key, body, headers })
      assert.strictEqual(fresh.status, 200)
      assert.isUndefined(fresh.headers["idempotent-replayed"])
      assert.notStrictEqual(fresh.body.id, first.body.id)
      assert.strictEqual(yield* groupCount(key), 2)

      // another key of this identity, 24 h on: the lazy purge removes the expired one
      yield* request("POST", "/v4/model-groups", { key, body, headers: { "idempotency-key": "other" } })
      yield* TestClock.adjust("25 hours")
      yield* request("POST", "/v4/model-groups", { key, body, headers: { "idempotency-key": "third" } })
      assert.deepStrictEqual((yield* rowsFor(identityId)).map((r) => r.idempotency_key), ["third"])
    }))

  it.effect("a 422, 413 or 401 first response is not recorded: the corrected request performs", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision()
      const headers = { "idempotency-key": "fix-me" }
      const invalid = yield* request("POST", "/v4/model-groups", { key, body: { account_id: accountId }, headers })
      assert.strictEqual(invalid.status, 422)
      assert.deepStrictEqual(issues(invalid), [{ loc: ["body", "name"], type: "missing" }])
      assert.deepStrictEqual(yield* rowsFor(identityId), [])

      const malformed = yield* request("POST", "/v4/model-groups", { key, body: "{\"name\":", headers })
      assert.strictEqual(malformed.status, 422)
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])
      const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), account_id: accountId })
      const tooLarge = yield* request("POST", "/v4/model-groups", { key, body: big, headers })
      assert.strictEqual(tooLarge.status, 413)
      assert.deepStrictEqual(yield* rowsFor(identityId), [])

      const fixed = yield* request("POST", "/v4/model-groups", { key, body: { name: "ok", account_id: accountId }, headers })
      assert.strictEqual(fixed.status, 200)
      assert.isUndefined(fixed.headers["idempotent-replayed"])

      const unknown = yield* request("POST", "/v4/model-groups", {
        key: "pk_nobody",
        body: { name: "ok", account_id: accountId },
        headers
      })
      assert.strictEqual(unknown.status, 401)
      const noKey = yield* request("POST", "/v4/model-groups", { body: "{not json", headers })
      assert.strictEqual(noKey.status, 401)
    }))

  it.effect("a 5xx is not recorded: the retry performs", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision()
      const headers = { "idempotency-key": "after-outage" }
      const body = { name: "g", account_id: accountId }
      const sql = yield* SqlClient.SqlClient
      yield* sql`ALTER TABLE model_groups RENAME TO model_groups_away`
      const failed = yield* request("POST", "/v4/model-groups", { key, body, headers }).pipe(
        Effect.ensuring(Effect.orDie(sql`ALTER TABLE model_groups_away RENAME TO model_groups`))
      )
      assert.strictEqual(failed.status, 500)
      assert.deepStrictEqual(yield* rowsFor(identityId), [])
      const retried = yield* request("POST", "/v4/model-groups", { key, body, headers })
      assert.strictEqual(retried.status, 200)
      assert.isUndefined(retried.headers["idempotent-replayed"])
      assert.strictEqual(yield* groupCount(key), 1)
    }))

  it.effect("a final 4xx (403) is recorded and replayed", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const headers = { "idempotency-key": "forbidden" }
      const body = { name: "g", account_id: bob.accountId }
      const first = yield* request("POST", "/v4/model-groups", { key: alice.key, body, headers })
      assert.strictEqual(first.status, 403)
      const again = yield* request("POST", "/v4/model-groups", { key: alice.key, body, headers })
      assert.strictEqual(again.status, 403)
      assert.deepStrictEqual(again.body, first.body)
      assert.strictEqual(again.headers["idempotent-replayed"], "true")
    }))

  it.effect("while the first request runs, another with its key gets 409 + retry-after; an abandoned claim is taken over after its lease", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision()
      const headers = { "idempotency-key": "busy" }
      const body = { name: "g", account_id: accountId }
      yield* request("POST", "/v4/model-groups", { key, body, headers })
      // as if the first request were still running (or its process had died before it answered)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE idempotency_keys SET state = 'pending' WHERE identity_id = ${identityId}`
      const busy = yield* request("POST", "/v4/model-groups", { key, body, headers })
      assert.strictEqual(busy.status, 409)
      assert.strictEqual(busy.headers["retry-after"], "1")
      assert.isUndefined(busy.headers["x-should-retry"])
      assert.isString(busy.body.detail)

      const mismatch = yield* request("POST", "/v4/model-groups", { key, body: { ...body, name: "h" }, headers })
      assert.strictEqual(mismatch.status, 422)

      yield* TestClock.adjust("1 minutes")
      const retaken = yield* request("POST", "/v4/model-groups", { key, body, headers })
      assert.strictEqual(retaken.status, 200)
      assert.isUndefined(retaken.headers["idempotent-replayed"])
    }))

  it.effect("concurrent requests with one key make one entity; the others replay it or get 409", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const headers = { "idempotency-key": "race" }
      const body = { name: "raced", account_id: accountId }
      const responses = yield* Effect.all(
        Array.from({ length: 8 }, () => request("POST", "/v4/model-groups", { key, body, headers })),
        { concurrency: "unbounded" }
      )
      const ok = responses.filter((r) => r.status === 200)
      assert.isAbove(ok.length, 0)
      assert.isTrue(responses.every((r) => r.status === 200 || r.status === 409), responses.map((r) => r.status).join())
      assert.strictEqual(new Set(ok.map((r) => r.body.id)).size, 1)
      assert.strictEqual(ok.filter((r) => r.headers["idempotent-replayed"] === undefined).length, 1)
      assert.strictEqual(yield* groupCount(key), 1)
    }))

  it.effect("claims racing for one key: exactly one wins, the others see it in progress, then its response", () =>
    Effect.gen(function*() {
      const { identityId } = yield* provision()
      const store = yield* IdempotencyStore
      const request = { method: "POST", path: "/v4/model-groups", requestHash: "h" }
      const claims = yield* Effect.all(
        Array.from({ length: 10 }, () => store.claim(identityId, "raced-claim", request)),
        { concurrency: "unbounded" }
      )
      const won = claims.filter((c) => c._tag === "Claimed")
      assert.strictEqual(won.length, 1)
      assert.isTrue(claims.every((c) => c._tag === "Claimed" || c._tag === "InProgress"))
      const claimId = (won[0] as { claimId: string }).claimId
      yield* store.complete(identityId, "raced-claim", claimId, { status: 200, headers: {}, body: "{}" })
      const after = yield* store.claim(identityId, "raced-claim", request)
      assert.strictEqual(after._tag, "Replay")
      // a released claim lets the next request perform
      const other = yield* store.claim(identityId, "released", request)
      assert.strictEqual(other._tag, "Claimed")
      yield* store.release(identityId, "released", (other as { claimId: string }).claimId)
      assert.strictEqual((yield* store.claim(identityId, "released", request))._tag, "Claimed")
    }).pipe(Effect.provide(IdempotencyStore.Default)))

  it.effect("without the header, and on other methods, nothing changes and nothing is stored", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision()
      const body = { name: "g", account_id: accountId }
      const a = yield* request("POST", "/v4/model-groups", { key, body })
      const b = yield* request("POST", "/v4/model-groups", { key, body })
      assert.notStrictEqual(a.body.id, b.body.id)

      const headers = { "idempotency-key": "not-for-get" }
      const list = yield* request("GET", "/v4/model-groups", { key, headers })
      assert.strictEqual(list.status, 200)
      assert.isUndefined(list.headers["idempotent-replayed"])
      const evaluation = yield* request("POST", "/v5/evaluations", { key, body: { name: "e", account_id: accountId } })
      const path = `/v5/evaluations/${evaluation.body.id}`
      const patched = yield* request("PATCH", path, { key, body: { name: "p" }, headers })
      const patchedAgain = yield* request("PATCH", path, { key, body: { name: "q" }, headers })
      assert.strictEqual(patched.body.name, "p")
      assert.strictEqual(patchedAgain.status, 200)
      assert.strictEqual(patchedAgain.body.name, "q")
      assert.isUndefined(patchedAgain.headers["idempotent-replayed"])
      assert.deepStrictEqual(yield* rowsFor(identityId), [])
    }))

  it.effect("an empty or over-long key is a 422 on the header", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const body = { name: "g", account_id: accountId }
      const long = yield* request("POST", "/v4/model-groups", { key, body, headers: { "idempotency-key": "k".repeat(256) } })
      assert.strictEqual(long.status, 422)
      assert.deepStrictEqual(issues(long), [{ loc: ["header", "idempotency-key"], type: "string_too_long" }])
      const empty = yield* request("POST", "/v4/model-groups", { key, body, headers: { "idempotency-key": "" } })
      assert.strictEqual(empty.status, 422)
      assert.deepStrictEqual(issues(empty), [{ loc: ["header", "idempotency-key"], type: "string_too_short" }])
      const longest = yield* request("POST", "/v4/model-groups", { key, body, headers: { "idempotency-key": "k".repeat(255) } })
      assert.strictEqual(longest.status, 200)
      assert.strictEqual(yield* groupCount(key), 1)
    }))

  it.effect("a form (upload_files) sent again under its key, serialized anew, is answered once; another form under it is a 422", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const kb = yield* request("POST", "/v4/knowledge-bases", {
        key,
        body: { knowledge_base_name: "forms", embedding_config: { type: "base" } }
      })
      assert.strictEqual(kb.status, 200, JSON.stringify(kb.body))
      const path = `/v4/knowledge-bases/${kb.body.knowledge_base_id}/upload_files`
      const send = (text: string) =>
        Effect.gen(function*() {
          const client = yield* HttpClient.HttpClient
          // a FormData of its own each time: a new multipart boundary, as a client's retry makes
          const data = new FormData()
          data.append("files", new Blob([text], { type: "text/plain" }), "a.txt")
          data.append("chunking_strategy_config", JSON.stringify({ strategy: "character", chunk_size: 50, chunk_overlap: 0 }))
          data.append("data_source_config", "{}")
          data.append("force_reupload", "false")
          const response = yield* client.execute(
            HttpClientRequest.post(path).pipe(
              HttpClientRequest.setHeaders({ "x-api-key": key, "idempotency-key": "form-1" }),
              HttpClientRequest.bodyFormData(data)
            )
          )
          return { status: response.status, headers: response.headers, body: yield* response.json as Effect.Effect<any> }
        }).pipe(Effect.scoped, Effect.orDie)

      const first = yield* send("alpha")
      assert.strictEqual(first.status, 200, JSON.stringify(first.body))
      const again = yield* send("alpha")
      assert.strictEqual(again.status, 200)
      assert.strictEqual(again.headers["idempotent-replayed"], "true")
      assert.deepStrictEqual(again.body, first.body)
      const uploads = yield* request("GET", `/v4/knowledge-bases/${kb.body.knowledge_base_id}/uploads`, { key })
      assert.strictEqual(uploads.body.total_item_count, 1)

      const other = yield* send("beta")
      assert.strictEqual(other.status, 422)
      assert.deepStrictEqual(issues({ status: other.status, headers: other.headers, body: other.body }), [
        { loc: ["header", "idempotency-key"], type: "idempotency_key_reused" }
      ])
    }))
})
