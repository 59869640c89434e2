/**
 * Request bodies the fuzz found answered wrongly (a 500, a hang, a value stored as `null`): each is
 * now a 422 in the contract's shape, or read as the JSON it is.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { serverWire, TestServerLive } from "../src/testing.js"

const caller = Effect.map(Effect.flatMap(Accounts, (accounts) => accounts.provisionUser()), (made) => ({
  accountId: made.accountId,
  key: Redacted.value(made.key)
}))

const post = (target: string, key: string, body: string, contentType = "application/json") =>
  Effect.flatMap(serverWire, (wire) =>
    Effect.promise(() => wire.send({ method: "POST", target, headers: { "x-api-key": key, "content-type": contentType }, body })))

layer(TestServerLive)("request bodies", (it) => {
  it.effect("a form whose body ends inside a file, before its closing boundary, is a 422 at once and stores nothing", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* caller
      const kb = yield* post("/v4/knowledge-bases", key, JSON.stringify({ knowledge_base_name: "k", embedding_config: { type: "base" } }))
      const cut = (field: string) =>
        `--XyZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nds\r\n--XyZ\r\nContent-Disposition: form-data; name="${field}"; filename="a.jsonl"\r\nContent-Type: application/octet-stream\r\n\r\n{"input":"a","output":"b"}\n{"inp`
      for (const [target, field] of [
        [`/v4/training-datasets?account_id=${accountId}`, "file"],
        ["/v4/applications/upload-files", "files[]"],
        [`/v4/knowledge-bases/${kb.json.knowledge_base_id}/upload_files`, "files"]
      ] as const) {
        const response = yield* post(target, key, cut(field), "multipart/form-data; boundary=XyZ")
        assert.strictEqual(response.status, 422, `${target}: ${response.text.slice(0, 200)}`)
      }
      const wire = yield* serverWire
      for (const list of ["/v4/training-datasets", "/v4/application-files"]) {
        const read = yield* Effect.promise(() => wire.send({ method: "GET", target: list, headers: { "x-api-key": key } }))
        assert.strictEqual(read.json.total_item_count, 0, list)
      }
    }))

  it.effect("a number JSON cannot hold (1e999 parses to Infinity) is a 422 finite_number at its field, not a null stored", () =>
    Effect.gen(function*() {
      const { key } = yield* caller
      const response = yield* post(
        "/v4/knowledge-bases",
        key,
        "{\"knowledge_base_name\":\"k\",\"embedding_config\":{\"type\":\"base\"},\"metadata\":{\"limit\":1e999}}"
      )
      assert.strictEqual(response.status, 422)
      assert.deepStrictEqual(response.json.detail.map((i: any) => [i.loc, i.type]), [[["body", "metadata", "limit"], "finite_number"]])
    }))

  it.effect("JSON nested deeper than 128 levels is a 422 json_invalid, not a 500", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* caller
      for (const depth of [129, 100_000]) {
        const nested = `${"[".repeat(depth)}${"]".repeat(depth)}`
        const response = yield* post("/v4/model-groups", key, `{"name":${nested},"account_id":"${accountId}"}`)
        assert.strictEqual(response.status, 422, response.text.slice(0, 200))
        assert.strictEqual(response.json.detail[0].type, "json_invalid")
      }
      // 128 levels are fine where the schema takes any JSON
      const ok = yield* post(
        "/v4/knowledge-bases",
        key,
        `{"knowledge_base_name":"k","embedding_config":{"type":"base"},"metadata":{"a":${"[".repeat(126)}${"]".repeat(126)}}}`
      )
      assert.strictEqual(ok.status, 200, ok.text.slice(0, 200))
    }))

  it.effect("a body is read as JSON whatever its content type: no hang on bytes, no form decoding", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* caller
      const body = JSON.stringify({ name: "g", account_id: accountId })
      for (const contentType of ["text/plain", "application/octet-stream", "application/x-www-form-urlencoded"]) {
        const response = yield* post("/v4/model-groups", key, body, contentType)
        assert.strictEqual(response.status, 200, `${contentType}: ${response.text}`)
      }
      // what `curl -d name=g` sends is not JSON
      const form = yield* post("/v4/model-groups", key, `name=g&account_id=${accountId}`, "application/x-www-form-urlencoded")
      assert.strictEqual(form.status, 422)
      assert.strictEqual(form.json.detail[0].type, "json_invalid")
      // a body the schema rejects, sent as bytes, still gets its field-level 422
      const bytes = yield* post("/v4/model-groups", key, JSON.stringify({ name: 5, account_id: accountId }), "application/octet-stream")
      assert.strictEqual(bytes.status, 422)
      assert.deepStrictEqual(bytes.json.detail.map((i: any) => i.loc), [["body", "name"]])
    }))
})
