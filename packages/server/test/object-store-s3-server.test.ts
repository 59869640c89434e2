/**
 * The server on the object store's S3 backend (`PLATFORM_OBJECT_STORE_URL`, platform/S3ObjectStore.ts)
 * against an S3-compatible server on 127.0.0.1 (support/s3.ts): every family that keeps bytes
 * keeps them as S3 objects under the configured bucket's prefix (files with their dedup and
 * delete, application files, training datasets), a cloud import and a knowledge base's
 * `OBJECT_STORE` data source read a user's own bucket of the service, and the store's bucket is
 * no user's to read. The store's operations one by one: platform-object-store-s3.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import { S3Location } from "../src/platform/S3ObjectStore.js"
import { call, listAll, text as bodyText, send } from "../src/platform/S3Client.js"
import { eventually, provision, request } from "../src/testing.js"
import { serverWith } from "./support/progression.js"
import { s3Server, s3StoreEnv } from "./support/s3.js"
import { datasetForm } from "./support/trainingDatasets.js"

/** The store's settings: bucket `kit` under prefix `run`, on the S3 server of `endpoint`. */
class Settings extends Context.Tag("test/Settings")<Settings, Record<string, string>>() {}

const ServerLive = Layer.unwrapScoped(Effect.map(s3Server(["kit", "imports", "kbdocs"]), (endpoint) => {
  const env = s3StoreEnv(endpoint, "kit", "run")
  return Layer.merge(serverWith(env), Layer.succeed(Settings, env))
}))

/** The S3 service as the store sees it: keys of a bucket, an object's text, a put. */
const s3 = Effect.gen(function*() {
  const env = yield* Settings
  const { target } = yield* Effect.withConfigProvider(S3Location(env.PLATFORM_OBJECT_STORE_URL!), ConfigProvider.fromMap(new Map(Object.entries(env))))
  return {
    keys: (bucket: string) => Effect.promise(() => listAll(target, bucket, "").then((listed) => listed.map((one) => one.key))),
    get: (bucket: string, key: string) => Effect.promise(() => send(target, { method: "GET", bucket, key }).then(bodyText)),
    put: (bucket: string, key: string, content: string) =>
      Effect.promise(() => call(target, { method: "PUT", bucket, key, body: new TextEncoder().encode(content) }, "put"))
  }
})

const form = (name: string, content: string, type = "text/plain") => {
  const data = new FormData()
  data.append("file", new Blob([content], { type }), name)
  return data
}
const sha256 = (value: string) => Crypto.createHash("sha256").update(value).digest("hex")

layer(ServerLive, { timeout: 60_000 })("the server on the S3 object store", (it) => {
  it.effect("files: the bytes are one S3 object per account and content under the store's prefix; download exact; the last delete removes it; nothing incoming left", () =>
    Effect.gen(function*() {
      const { keys } = yield* s3
      const caller = yield* provision()
      const content = `s3 file ${Crypto.randomUUID()}`
      const first = yield* caller.client.files.create({ urlParams: {}, payload: form("a.txt", content) })
      const second = yield* caller.client.files.create({ urlParams: {}, payload: form("b.txt", content) })
      const blobs = (yield* keys("kit")).filter((key) => key.endsWith(sha256(content)))
      assert.strictEqual(blobs.length, 1)
      assert.isTrue(blobs[0]!.startsWith("run/.platform/files/"))
      assert.deepStrictEqual((yield* keys("kit")).filter((key) => key.includes("/incoming/")), [])
      const download = yield* request("GET", `/v5/files/${second.id}/content`, { key: caller.key })
      assert.deepStrictEqual([download.status, download.body], [200, content])
      yield* caller.client.files.delete({ path: { file_id: first.id } })
      assert.deepStrictEqual((yield* keys("kit")).filter((key) => key.endsWith(sha256(content))), blobs)
      yield* caller.client.files.delete({ path: { file_id: second.id } })
      assert.deepStrictEqual((yield* keys("kit")).filter((key) => key.endsWith(sha256(content))), [])
    }))

  it.effect("cloud import reads a user's own bucket of the service; the store's bucket is refused, per file", () =>
    Effect.gen(function*() {
      const { put } = yield* s3
      const caller = yield* provision()
      yield* put("imports", "docs/a.csv", "x,y\n1,2\n")
      const imported = yield* request("POST", "/v5/files/cloud_imports", {
        key: caller.key,
        body: {
          files: [
            { container: "imports", filepath: "docs/a.csv", filename: "a.csv", file_type: "text/csv" },
            { container: "kit", filepath: "run/.platform/files/x", filename: "x", file_type: "text/plain" }
          ]
        }
      })
      assert.strictEqual(imported.status, 207)
      assert.deepStrictEqual(imported.body.results.map((result: any) => result.status), ["SUCCESS", "FAILED_FILE_DOES_NOT_EXIST"])
      const file = imported.body.results[0].file
      assert.strictEqual((yield* request("GET", `/v5/files/${file.id}/content`, { key: caller.key })).body, "x,y\n1,2\n")
    }))

  it.effect("application files and training datasets keep their bytes as S3 objects and read them back", () =>
    Effect.gen(function*() {
      const { get } = yield* s3
      const caller = yield* provision()
      const data = new FormData()
      data.append("files[]", new Blob(["héllo"], { type: "text/plain" }), "policy.txt")
      const [uploaded] = yield* caller.client.applicationFiles.upload({ urlParams: { account_id: caller.accountId }, payload: data })
      assert.strictEqual(yield* get("kit", `run/.platform/application-files/${uploaded!.id}`), "héllo")
      const content = yield* request("GET", `/v4/application-files/${uploaded!.id}/content`, { key: caller.key })
      assert.strictEqual(content.body, "héllo")

      const rows = `${JSON.stringify({ input: "2 + 2?", output: "4" })}\n`
      const dataset = yield* caller.client.trainingDatasets.create({
        payload: datasetForm({ name: "train.jsonl", content: rows }, { account_id: caller.accountId, name: "s3", schema_type: "GENERATION" })
      })
      assert.strictEqual(yield* get("kit", `run/.platform/training-datasets/${dataset.id}`), rows)
      const read = yield* caller.client.trainingDatasets.contents({ path: { training_dataset_id: dataset.id } })
      assert.deepStrictEqual(read.map((row) => [row.input, row.output]), [["2 + 2?", "4"]])
    }))

  it.effect("a knowledge base's OBJECT_STORE data source ingests a user's bucket of the service; one over the store's bucket fails, reading nothing", () =>
    Effect.gen(function*() {
      const { put } = yield* s3
      const caller = yield* provision()
      yield* put("kbdocs", "notes.txt", "aa\n\nbb")
      yield* put("kbdocs", "sub/more.md", "cc")
      const kb = (yield* request("POST", "/v4/knowledge-bases", { key: caller.key, body: { knowledge_base_name: "docs", embedding_config: { type: "base" } } })).body
      const base = `/v4/knowledge-bases/${kb.knowledge_base_id}`
      const ingest = (bucket: string) =>
        Effect.gen(function*() {
          const source = yield* request("POST", "/v4/knowledge-base-data-sources", {
            key: caller.key,
            body: { name: bucket, data_source_config: { source: "OBJECT_STORE", object_store_bucket: bucket, cloud_region: "local", cloud_account_id: "local" } }
          })
          assert.strictEqual(source.status, 200, JSON.stringify(source.body))
          const created = yield* request("POST", `${base}/uploads`, {
            key: caller.key,
            body: { data_source_id: source.body.id, chunking_strategy_config: { strategy: "character", chunk_size: 100, chunk_overlap: 0 } }
          })
          assert.strictEqual(created.status, 200, JSON.stringify(created.body))
          const done = yield* eventually(
            Effect.map(request("GET", `${base}/uploads/${created.body.upload_id}`, { key: caller.key }), (upload) =>
              upload.body.status === "Running" ? Option.none() : Option.some(upload.body)),
            30_000
          )
          return Option.getOrThrow(done)
        })
      const completed = yield* ingest("kbdocs")
      assert.deepStrictEqual([completed.status, completed.status_reason], ["Completed", "2 of 2 artifacts completed"])
      const refused = yield* ingest("kit")
      assert.strictEqual(refused.status, "Failed")
      assert.include(refused.status_reason, "Bucket kit is not a bucket of the object store's S3 service")
    }))
})
