/**
 * Knowledge bases that answer queries (docs/knowledge-bases.md "Retrieval"): full-text and vector
 * candidates scored together, best first, in 0..1; filters; what artifact and knowledge-base
 * changes do to what a query finds; embeddings through a model deployment (an upstream of the
 * test's own on 127.0.0.1); another account's chunks never found.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { eventually, issues, provision, request } from "../src/testing.js"
import { readyDeployment } from "./support/models.js"
import { serverWith } from "./support/progression.js"
import { upstream } from "./support/upstream.js"

const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kb-retrieval-"))
const write = (bucket: string, name: string, content: string) => {
  const file = Path.join(root, bucket, name)
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, content)
}

type Caller = { readonly key: string; readonly accountId: string }

const ok = (caller: Caller, method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
  Effect.map(request(method, path, { key: caller.key, ...(body === undefined ? {} : { body }) }), (response) => {
    assert.strictEqual(response.status, 200, `${method} ${path}: ${JSON.stringify(response.body)}`)
    return response.body
  })

const words = ["river", "garden", "engine", "market", "window", "forest", "signal", "harbor", "valley", "copper", "lantern", "meadow"]

/** A paragraph of ordinary words, different for each `seed`. */
const paragraph = (seed: number) =>
  Array.from({ length: 30 }, (_, i) => words[(seed * 7 + i * (seed % 5 + 1)) % words.length]).join(" ") + "."

/** `bucket` filled with 12 ordinary files, one of which (`rare.txt`) also holds a rare phrase. */
const library = (bucket: string) => {
  for (let i = 0; i < 12; i++) write(bucket, `file-${String(i).padStart(2, "0")}.txt`, `${paragraph(i)}\n\n${paragraph(i + 20)}`)
  write(bucket, "rare.txt", `${paragraph(3)}\n\nThe zanzibar quokka protocol governs how tides are measured.\n\n${paragraph(4)}`)
}

/** A knowledge base of `caller` (with `embedding_config`) holding the files of `bucket`, once uploaded. */
const ingested = (caller: Caller, bucket: string, embedding_config: unknown = { type: "base" }) =>
  Effect.gen(function*() {
    const kb = yield* ok(caller, "POST", "/v4/knowledge-bases", { knowledge_base_name: bucket, embedding_config })
    const base = `/v4/knowledge-bases/${kb.knowledge_base_id}`
    const created = yield* ok(caller, "POST", `${base}/uploads`, {
      data_source_config: { source: "S3", s3_bucket: bucket },
      // paragraphs of at most 240 characters: each its own chunk
      chunking_strategy_config: { strategy: "character", chunk_size: 250, chunk_overlap: 0 }
    })
    const done = yield* eventually(
      Effect.map(ok(caller, "GET", `${base}/uploads/${created.upload_id}?include_artifact_list=true`), (upload) =>
        upload.status === "Running" ? Option.none() : Option.some(upload)),
      60_000
    )
    assert.isTrue(Option.isSome(done))
    return { base, upload: Option.getOrThrow(done) }
  })

const query = (caller: Caller, base: string, body: Record<string, unknown>) =>
  Effect.map(ok(caller, "POST", `${base}/query`, body), (answer) => answer.chunks as Array<any>)

const assertRanked = (chunks: ReadonlyArray<any>) => {
  for (const [i, chunk] of chunks.entries()) {
    assert.isAtLeast(chunk.score, 0)
    assert.isAtMost(chunk.score, 1)
    if (i > 0) assert.isAtMost(chunk.score, chunks[i - 1].score)
  }
}

layer(serverWith({ PLATFORM_OBJECT_STORE_ROOT: root }), { timeout: 120_000 })("knowledge bases: retrieval", (it) => {
  it.effect("the chunk holding a rare phrase comes first; scores in 0..1, best first; embeddings only when asked", () =>
    Effect.gen(function*() {
      library("library")
      const caller = yield* provision()
      const { base, upload } = yield* ingested(caller, "library")
      assert.strictEqual(upload.status, "Completed")
      const chunks = yield* query(caller, base, { query: "What does the zanzibar quokka protocol govern?", top_k: 5 })
      assert.strictEqual(chunks.length, 5)
      assert.strictEqual(chunks[0].text, "The zanzibar quokka protocol governs how tides are measured.")
      assert.strictEqual(chunks[0].title, "rare.txt")
      assert.strictEqual(chunks[0].metadata.artifact_name, "rare.txt")
      assert.strictEqual(chunks[0].metadata.artifact_uri, "s3://library/rare.txt")
      assert.isAbove(chunks[0].score, chunks[1].score)
      assertRanked(chunks)
      assert.isTrue(chunks.every((chunk) => chunk.embedding === null && chunk.attachment_url === null))
      // the embedding of each chunk, as ingested (the built-in embeddings: 256 dimensions)
      const withEmbeddings = yield* query(caller, base, { query: "zanzibar quokka", top_k: 2, include_embeddings: true })
      assert.strictEqual(withEmbeddings[0].embedding.length, 256)
      // a query none of whose words any chunk holds: scored by the embeddings alone, still ranked
      const unrelated = yield* query(caller, base, { query: "xylophone", top_k: 3 })
      assert.strictEqual(unrelated.length, 3)
      assertRanked(unrelated)
      // without top_k: every chunk (13 files of 2 paragraphs, one of 3)
      const all = yield* query(caller, base, { query: "river" })
      assert.strictEqual(all.length, 27)
      assertRanked(all)
      // the knowledge base's chunks list, by id too
      const listed = yield* ok(caller, "GET", `${base}/chunks?max_chunks=1000`)
      assert.strictEqual(listed.chunks.length, 27)
      const one = yield* ok(caller, "GET", `${base}/chunks?chunk_id=${chunks[0].chunk_id}`)
      assert.deepStrictEqual(one.chunks.map((c: any) => c.text), [chunks[0].text])
    }))

  it.effect("metadata and wildcard filters narrow both kinds of candidates; bad filters are a 422", () =>
    Effect.gen(function*() {
      library("filtered")
      const caller = yield* provision()
      const { base } = yield* ingested(caller, "filtered")
      const only = yield* query(caller, base, { query: "zanzibar quokka river", top_k: 10, metadata_filters: { artifact_name: "file-03.txt" } })
      assert.strictEqual(only.length, 2)
      assert.isTrue(only.every((chunk) => chunk.metadata.artifact_name === "file-03.txt"))
      const either = yield* query(caller, base, {
        query: "river",
        top_k: 10,
        metadata_filters: { artifact_name: ["file-01.txt", "rare.txt"], chunk_position: 0 }
      })
      assert.deepStrictEqual(either.map((chunk) => chunk.metadata.artifact_name).sort(), ["file-01.txt", "rare.txt"])
      const wild = yield* query(caller, base, {
        query: "river",
        top_k: 50,
        wildcard_filters: { artifact_name: { value: "FILE-1?.TXT", case_insensitive: true } }
      })
      assert.deepStrictEqual([...new Set(wild.map((chunk) => chunk.metadata.artifact_name))].sort(), ["file-10.txt", "file-11.txt"])
      const caseSensitive = yield* query(caller, base, { query: "river", top_k: 50, wildcard_filters: { artifact_name: { value: "FILE-*" } } })
      assert.strictEqual(caseSensitive.length, 0)
      const listed = yield* ok(caller, "GET", `${base}/chunks?max_chunks=100&metadata_filters=${encodeURIComponent(JSON.stringify({ artifact_name: "rare.txt" }))}`)
      assert.strictEqual(listed.chunks.length, 3)

      const bad = yield* request("POST", `${base}/query`, { key: caller.key, body: { query: "", top_k: 0, metadata_filters: { a: { nested: 1 } } } })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc.join(".")), ["body.query", "body.top_k", "body.metadata_filters.a"])
      // filters a database could not run are refused, not tried: a field name with a quote, too many
      // fields or values, a pattern too long
      for (
        const body of [
          { query: "x", metadata_filters: { "a\"b": 1 } },
          { query: "x", metadata_filters: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, i])) },
          { query: "x", metadata_filters: { n: Array.from({ length: 1_001 }, (_, i) => i) } },
          { query: "x", wildcard_filters: { artifact_name: { value: "*".repeat(1_001) } } }
        ]
      ) {
        const refused = yield* request("POST", `${base}/query`, { key: caller.key, body })
        assert.strictEqual(refused.status, 422, JSON.stringify(refused.body).slice(0, 200))
      }
      // a wildcard matches text fields only (chunk_position is a number)
      assert.strictEqual((yield* query(caller, base, { query: "river", wildcard_filters: { chunk_position: { value: "*" } } })).length, 0)
    }))

  it.effect("tags, deletes and the knowledge base's own changes: what a query finds follows them", () =>
    Effect.gen(function*() {
      library("changes")
      const caller = yield* provision()
      const { base, upload } = yield* ingested(caller, "changes")
      const artifacts = Object.fromEntries(upload.artifacts.map((a: any) => [a.artifact_name, a.artifact_id]))
      // tags replace the artifact's, and reach its chunks' metadata
      const tagged = yield* ok(caller, "PATCH", `${base}/artifacts/${artifacts["rare.txt"]}`, { tags: { topic: "tides" } })
      assert.deepStrictEqual(tagged.tags, { topic: "tides" })
      const byTag = yield* query(caller, base, { query: "protocol", top_k: 10, metadata_filters: { topic: "tides" } })
      assert.strictEqual(byTag.length, 3)
      // a deleted artifact's chunks are never found again
      assert.deepStrictEqual(yield* ok(caller, "DELETE", `${base}/artifacts/${artifacts["rare.txt"]}`), {
        artifact_id: artifacts["rare.txt"],
        deleted: true
      })
      const after = yield* query(caller, base, { query: "zanzibar quokka protocol", top_k: 30 })
      assert.isFalse(after.some((chunk) => chunk.text.includes("zanzibar")))
      assert.strictEqual(after.length, 24)
      const batch = yield* ok(caller, "POST", `${base}/artifacts/batch-delete`, {
        artifact_ids: [artifacts["file-00.txt"], artifacts["file-01.txt"], "not-an-artifact"]
      })
      assert.deepStrictEqual(batch, { artifact_ids: [artifacts["file-00.txt"], artifacts["file-01.txt"]] })
      assert.strictEqual((yield* query(caller, base, { query: "river" })).length, 20)
      assert.strictEqual((yield* ok(caller, "GET", `${base}?view=ArtifactCount`)).artifact_count, 10)
      // renamed, then deleted with all it holds
      assert.deepStrictEqual(yield* ok(caller, "PATCH", base, { knowledge_base_name: "renamed", metadata: { k: 1 } }), {
        knowledge_base_name: "renamed",
        metadata: { k: 1 }
      })
      assert.strictEqual((yield* ok(caller, "GET", base)).knowledge_base_name, "renamed")
      const id = base.split("/").at(-1)
      assert.deepStrictEqual(yield* ok(caller, "DELETE", base), { deleted: true, knowledge_base_id: id })
      for (const path of [base, `${base}/artifacts/${artifacts["file-02.txt"]}`, `${base}/uploads/${upload.upload_id}`]) {
        assert.strictEqual((yield* request("GET", path, { key: caller.key })).status, 404)
      }
      assert.strictEqual((yield* request("POST", `${base}/query`, { key: caller.key, body: { query: "river" } })).status, 404)
    }))

  it.effect("another account's knowledge base, chunks and queries: never visible", () =>
    Effect.gen(function*() {
      library("alice")
      write("bob", "bob.txt", "Bob writes about the zanzibar quokka protocol too.")
      const alice = yield* provision()
      const bob = yield* provision()
      const { base: aliceBase, upload } = yield* ingested(alice, "alice")
      const { base: bobBase } = yield* ingested(bob, "bob")
      for (
        const [method, path, body] of [
          ["POST", `${aliceBase}/query`, { query: "zanzibar" }],
          ["GET", `${aliceBase}/chunks`, undefined],
          ["GET", `${aliceBase}/artifacts/${upload.artifacts[0].artifact_id}`, undefined],
          ["GET", `${aliceBase}/artifacts/${upload.artifacts[0].artifact_id}/chunks`, undefined],
          ["DELETE", `${aliceBase}/artifacts/${upload.artifacts[0].artifact_id}`, undefined],
          ["POST", `${aliceBase}/artifacts/batch-delete`, { artifact_ids: [upload.artifacts[0].artifact_id] }]
        ] as const
      ) {
        const response = yield* request(method, path, { key: bob.key, ...(body === undefined ? {} : { body }) })
        assert.strictEqual(response.status, 404, `${method} ${path}`)
      }
      // Bob's own base, with Alice's artifact id: nothing of hers is deleted
      const foreign = yield* ok(bob, "POST", `${bobBase}/artifacts/batch-delete`, { artifact_ids: [upload.artifacts[0].artifact_id] })
      assert.deepStrictEqual(foreign, { artifact_ids: [] })
      const bobs = yield* query(bob, bobBase, { query: "zanzibar quokka protocol river garden", top_k: 50 })
      assert.deepStrictEqual(bobs.map((chunk) => chunk.text), ["Bob writes about the zanzibar quokka protocol too."])
      assert.strictEqual((yield* query(alice, aliceBase, { query: "zanzibar", top_k: 50 })).length, 27)
    }))

  it.scoped("a models_api embedding config: chunks and queries embedded by the deployment's upstream", () =>
    Effect.gen(function*() {
      write("remote", "a.txt", "apples grow on trees")
      write("remote", "b.txt", "boats float on water")
      const caller = yield* provision()
      // an upstream whose vectors say which fruit or vessel a text names
      const server = yield* upstream((received) => ({
        status: 200,
        body: {
          object: "list",
          model: "emb",
          data: received.body.input.map((text: string, index: number) => ({
            object: "embedding",
            index,
            embedding: [text.includes("apple") ? 1 : 0, text.includes("boat") ? 1 : 0, 0.1]
          })),
          usage: { prompt_tokens: 3, total_tokens: 3 }
        }
      }))
      const deployment = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: server.url, model: "emb" })
      const { base, upload } = yield* ingested(caller, "remote", { type: "models_api", model_deployment_id: deployment })
      assert.strictEqual(upload.status, "Completed", JSON.stringify(upload))
      // the batch's chunks embedded in one call
      assert.deepStrictEqual(server.received.map((r) => [r.path, r.body.input.length]), [["/v1/embeddings", 2]])
      // "vessel" is no word of either chunk: the upstream's vectors decide
      server.received.length = 0
      const chunks = yield* query(caller, base, { query: "which boat?", top_k: 2, include_embeddings: true })
      assert.deepStrictEqual(chunks.map((chunk) => chunk.text), ["boats float on water", "apples grow on trees"])
      assert.deepStrictEqual(chunks[0].embedding.map((x: number) => Math.round(x * 10) / 10), [0, 1, 0.1])
      assert.deepStrictEqual(server.received.map((r) => r.body.input), [["which boat?"]])
      // recorded in the deployment's usage statistics: one call for the files, one for the query
      // (the engine's on wall time, the request's on the suite's clock: a window over both)
      const usage = yield* eventually(
        Effect.map(
          ok(caller, "GET", `/v4/model-deployments/${deployment}/usage-statistics?chunks=1&start_date=1970-01-01&end_date=2100-01-01`),
          (stats) => (stats.data[0].request_count === 2 ? Option.some(stats.data[0]) : Option.none())
        ),
        10_000
      )
      assert.isTrue(Option.isSome(usage), "two embedding calls recorded")
      assert.deepInclude(Option.getOrThrow(usage), { request_count: 2, prompt_tokens: 6, error_count: 0 })
    }))
})
