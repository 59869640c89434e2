/**
 * Chunks written by hand into a `LocalChunks` artifact (docs/knowledge-bases.md "Chunks by
 * hand"): create, retrieve, put, delete; each write embedded and indexed before it answers (a
 * query finds it at once, by its words and by its embedding), the artifact's `chunks_status`
 * following; the refusals (another source, an upload ingesting it) and bad bodies.
 */
import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ArtifactChunk } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { eventually, issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { readyDeployment } from "./support/models.js"
import { upstream } from "./support/upstream.js"

type Client = Effect.Effect.Success<ReturnType<typeof provision>>["client"]

/** A caller with a knowledge base (built-in embeddings) holding one LocalChunks artifact, ingested by an upload of two chunks. */
const setup = Effect.gen(function*() {
  const caller = yield* provision()
  const { client } = caller
  const kb = yield* client.knowledgeBases.create({ payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } } })
  const knowledge_base_id = kb.knowledge_base_id
  const posted = yield* request("POST", `/v4/knowledge-bases/${knowledge_base_id}/uploads`, {
    key: caller.key,
    body: {
      data_source_config: { source: "LocalChunks", artifact_name: "faq.txt", artifact_uri: "local://faq" },
      chunks: [
        { chunk_position: 0, text: "Our office opens at nine in the morning" },
        { chunk_position: 1, text: "Parking is free for visitors on weekends" }
      ]
    }
  })
  assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
  const upload_id: string = posted.body.upload_id
  const done = yield* eventually(
    Effect.map(
      client.knowledgeBaseUploads.get({ path: { knowledge_base_id, upload_id }, urlParams: { include_artifact_list: true } }),
      (upload) => (upload.status === "Running" ? Option.none() : Option.some(upload))
    )
  )
  const upload = Option.getOrThrow(done)
  assert.strictEqual(upload.status, "Completed", upload.status_reason ?? "")
  const artifact_id = upload.artifacts[0]!.artifact_id
  return { ...caller, knowledge_base_id, artifact_id, chunks: `/v4/knowledge-bases/${knowledge_base_id}/artifacts/${artifact_id}/chunks` }
})

/** The ids and texts a query answers, best first. */
const query = (client: Client, knowledge_base_id: string, text: string, top_k = 10) =>
  Effect.map(
    client.knowledgeBases.query({ path: { knowledge_base_id }, payload: { query: text, top_k } }),
    (found) => found.chunks
  )

const countsOf = (client: Client, knowledge_base_id: string, artifact_id: string) =>
  Effect.map(client.knowledgeBases.getArtifact({ path: { knowledge_base_id, artifact_id }, urlParams: {} }), (artifact) => artifact.chunks_status)

layer(TestServerLive, { timeout: 60_000 })("knowledge bases: chunks by hand", (it) => {
  it.effect("create: Completed, searchable at once by its words and its embedding, counted; retrieve reads it back", () =>
    Effect.gen(function*() {
      const { client, knowledge_base_id, artifact_id } = yield* setup
      const path = { knowledge_base_id, artifact_id }
      const created = yield* client.knowledgeBases.createArtifactChunk({
        path,
        payload: { chunk_position: 2, text: "Zebra crossings glow at dusk", metadata: { lang: "en" } }
      })
      assert.match(created.id, uuid)
      assert.deepStrictEqual(
        created,
        new ArtifactChunk({
          id: created.id,
          artifact_id,
          chunk_position: 2,
          status: "Completed",
          text: "Zebra crossings glow at dusk",
          // the search-index copy: the chunk's own, the artifact's fields and the position
          metadata: {
            lang: "en",
            artifact_id,
            artifact_name: "faq.txt",
            artifact_uri: "local://faq",
            source: "LocalChunks",
            chunk_position: 2
          },
          status_reason: null,
          user_supplied_metadata: { lang: "en" },
          created_at: created.created_at
        })
      )

      // right after the answer: found by a word only it holds, first, and by its own text with the top score
      const byWord = yield* query(client, knowledge_base_id, "zebra")
      assert.strictEqual(byWord[0]!.chunk_id, created.id)
      const byText = yield* query(client, knowledge_base_id, "Zebra crossings glow at dusk", 1)
      assert.deepStrictEqual(byText.map((chunk) => chunk.chunk_id), [created.id])
      assert.isAbove(byText[0]!.score, 0.99)
      // and by its metadata
      const filtered = yield* client.knowledgeBases.query({
        path: { knowledge_base_id },
        payload: { query: "office hours", top_k: 5, metadata_filters: { lang: "en" } }
      })
      assert.deepStrictEqual(filtered.chunks.map((chunk) => chunk.chunk_id), [created.id])

      // the artifact counts it; the lists hold it
      assert.deepStrictEqual(yield* countsOf(client, knowledge_base_id, artifact_id), { chunks_completed: 3, chunks_failed: 0, chunks_pending: 0 })
      const listed = yield* client.knowledgeBases.listArtifactChunks({ path, urlParams: {} })
      assert.deepStrictEqual(listed.items.map((chunk) => chunk.chunk_position), [0, 1, 2])
      assert.deepStrictEqual(listed.items[2], created)
      const one = yield* client.knowledgeBases.listChunks({ path: { knowledge_base_id }, urlParams: { chunk_id: created.id } })
      assert.deepStrictEqual(one.chunks.map((chunk) => chunk.text), ["Zebra crossings glow at dusk"])

      // retrieve answers what the create did
      assert.deepStrictEqual(yield* client.knowledgeBases.getArtifactChunk({ path: { ...path, chunk_id: created.id } }), created)
    }))

  it.effect("put replaces text, position and metadata and embeds again; delete takes it out of search and of the counts", () =>
    Effect.gen(function*() {
      const { client, knowledge_base_id, artifact_id } = yield* setup
      const path = { knowledge_base_id, artifact_id }
      const created = yield* client.knowledgeBases.createArtifactChunk({
        path,
        payload: { chunk_position: 2, text: "Zebra crossings glow at dusk", metadata: { lang: "en" } }
      })
      const chunkPath = { ...path, chunk_id: created.id }
      const put = yield* client.knowledgeBases.putArtifactChunk({
        path: chunkPath,
        payload: { chunk_position: 7, text: "Quokkas smile in the sun" }
      })
      assert.deepStrictEqual(put, new ArtifactChunk({
        ...created,
        chunk_position: 7,
        text: "Quokkas smile in the sun",
        metadata: { artifact_id, artifact_name: "faq.txt", artifact_uri: "local://faq", source: "LocalChunks", chunk_position: 7 },
        // metadata left out: none any more
        user_supplied_metadata: null
      }))
      assert.deepStrictEqual(yield* client.knowledgeBases.getArtifactChunk({ path: chunkPath }), put)
      // the old words are gone from the index, the new ones in it, the embedding the new text's
      const byOldWord = yield* query(client, knowledge_base_id, "zebra")
      assert.isFalse(byOldWord.some((chunk) => chunk.text.includes("Zebra")))
      const byText = yield* query(client, knowledge_base_id, "Quokkas smile in the sun", 1)
      assert.deepStrictEqual(byText.map((chunk) => chunk.chunk_id), [created.id])
      assert.isAbove(byText[0]!.score, 0.99)
      const filtered = yield* client.knowledgeBases.query({
        path: { knowledge_base_id },
        payload: { query: "anything", top_k: 5, metadata_filters: { lang: "en" } }
      })
      assert.deepStrictEqual(filtered.chunks, [])
      assert.deepStrictEqual(yield* countsOf(client, knowledge_base_id, artifact_id), { chunks_completed: 3, chunks_failed: 0, chunks_pending: 0 })

      const deleted = yield* client.knowledgeBases.deleteArtifactChunk({ path: chunkPath })
      assert.deepStrictEqual({ ...deleted }, { artifact_id, chunk_id: created.id, deleted: true })
      const after = yield* query(client, knowledge_base_id, "Quokkas smile in the sun")
      assert.deepStrictEqual(after.map((chunk) => chunk.text).sort(), [
        "Our office opens at nine in the morning",
        "Parking is free for visitors on weekends"
      ])
      assert.deepStrictEqual(yield* countsOf(client, knowledge_base_id, artifact_id), { chunks_completed: 2, chunks_failed: 0, chunks_pending: 0 })
      const notFound = yield* Effect.flip(client.knowledgeBases.getArtifactChunk({ path: chunkPath }))
      assert.deepStrictEqual([notFound._tag, (notFound as any).detail], ["NotFound", `Chunk ${created.id} not found`])
      assert.strictEqual((yield* Effect.flip(client.knowledgeBases.deleteArtifactChunk({ path: chunkPath })))._tag, "NotFound")
      assert.strictEqual(
        (yield* Effect.flip(client.knowledgeBases.putArtifactChunk({ path: chunkPath, payload: { chunk_position: 0, text: "back" } })))._tag,
        "NotFound"
      )
      // the upload's own chunks may be put and deleted too
      const [first] = (yield* client.knowledgeBases.listArtifactChunks({ path, urlParams: {} })).items
      yield* client.knowledgeBases.deleteArtifactChunk({ path: { ...path, chunk_id: first!.id } })
      assert.deepStrictEqual(yield* countsOf(client, knowledge_base_id, artifact_id), { chunks_completed: 1, chunks_failed: 0, chunks_pending: 0 })
    }))

  it.effect("refused (409, nothing stored) on an artifact of another source and on one an upload is ingesting; allowed on a LocalChunks artifact made by hand", () =>
    Effect.gen(function*() {
      const { client, key, knowledge_base_id, artifact_id } = yield* setup
      const file = yield* client.knowledgeBases.createArtifact({ path: { knowledge_base_id }, payload: { artifact_name: "manual.pdf" } })
      const filePath = { knowledge_base_id, artifact_id: file.artifact_id }
      const refused = yield* request("POST", `/v4/knowledge-bases/${knowledge_base_id}/artifacts/${file.artifact_id}/chunks`, {
        key,
        body: { chunk_position: 0, text: "by hand" }
      })
      assert.deepStrictEqual([refused.status, refused.body], [409, {
        detail: `Artifact ${file.artifact_id} is a LocalFile artifact: chunks are written by hand only into LocalChunks artifacts`
      }])
      assert.strictEqual((yield* client.knowledgeBases.listArtifactChunks({ path: filePath, urlParams: {} })).total_item_count, 0)
      // a chunk that is not there: 404 before the 409
      const missing = { ...filePath, chunk_id: "00000000-0000-4000-8000-000000000000" }
      assert.strictEqual((yield* Effect.flip(client.knowledgeBases.deleteArtifactChunk({ path: missing })))._tag, "NotFound")

      // a LocalChunks artifact registered by hand takes chunks
      const local = yield* client.knowledgeBases.createArtifact({
        path: { knowledge_base_id },
        payload: { artifact_name: "notes.txt", source: "LocalChunks" }
      })
      const localPath = { knowledge_base_id, artifact_id: local.artifact_id }
      const chunk = yield* client.knowledgeBases.createArtifactChunk({ path: localPath, payload: { chunk_position: 0, text: "Hand made" } })
      assert.strictEqual(chunk.artifact_id, local.artifact_id)
      assert.deepStrictEqual(yield* countsOf(client, knowledge_base_id, local.artifact_id), { chunks_completed: 1, chunks_failed: 0, chunks_pending: 0 })
      // a chunk of another artifact is not this one's
      assert.strictEqual(
        (yield* Effect.flip(client.knowledgeBases.getArtifactChunk({ path: { knowledge_base_id, artifact_id, chunk_id: chunk.id } })))._tag,
        "NotFound"
      )

      // the upload's artifact while an upload ingests it (as the database says, mid-ingestion)
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ doc: string }>`SELECT doc FROM kb_artifacts WHERE id = ${artifact_id}`
      const doc = typeof row!.doc === "string" ? JSON.parse(row!.doc) : row!.doc
      yield* sql`UPDATE kb_artifacts SET doc = ${JSON.stringify({ ...doc, status: "Embedding" })}, form = NULL, status = 'Embedding' WHERE id = ${artifact_id}`
      const busy = yield* request("POST", `/v4/knowledge-bases/${knowledge_base_id}/artifacts/${artifact_id}/chunks`, {
        key,
        body: { chunk_position: 9, text: "too early" }
      })
      assert.strictEqual(busy.status, 409)
      assert.match(busy.body.detail, /is being ingested by upload .* \(Embedding\)/)
      assert.strictEqual((yield* client.knowledgeBases.listArtifactChunks({ path: { knowledge_base_id, artifact_id }, urlParams: {} })).total_item_count, 2)
    }))

  it.scoped("a models_api base: the chunk embedded by the deployment's upstream; its failure fails the call, nothing stored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { client, key } = caller
      let failing = false
      // vectors that say whether a text names an apple or a boat
      const server = yield* upstream((received) =>
        failing ? { status: 500, body: { error: { message: "down" } } } : {
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
        }
      )
      const model_deployment_id = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: server.url, model: "emb" })
      const kb = yield* client.knowledgeBases.create({
        payload: { knowledge_base_name: "remote", embedding_config: { type: "models_api", model_deployment_id } }
      })
      const knowledge_base_id = kb.knowledge_base_id
      const artifact = yield* client.knowledgeBases.createArtifact({
        path: { knowledge_base_id },
        payload: { artifact_name: "notes.txt", source: "LocalChunks" }
      })
      const path = { knowledge_base_id, artifact_id: artifact.artifact_id }
      yield* client.knowledgeBases.createArtifactChunk({ path, payload: { chunk_position: 0, text: "apples grow on trees" } })
      const boats = yield* client.knowledgeBases.createArtifactChunk({ path, payload: { chunk_position: 1, text: "boats float on water" } })
      assert.deepStrictEqual(server.received.map((r) => r.body.input), [["apples grow on trees"], ["boats float on water"]])
      // "vessel" is no word of either chunk: the upstream's vectors decide
      const found = yield* query(client, knowledge_base_id, "which vessel? a boat", 1)
      assert.deepStrictEqual(found.map((chunk) => chunk.chunk_id), [boats.id])

      failing = true
      const failed = yield* request("POST", `/v4/knowledge-bases/${knowledge_base_id}/artifacts/${artifact.artifact_id}/chunks`, {
        key,
        body: { chunk_position: 2, text: "apples again" }
      })
      assert.strictEqual(failed.status, 502, JSON.stringify(failed.body))
      const put = yield* request("PUT", `/v4/knowledge-bases/${knowledge_base_id}/artifacts/${artifact.artifact_id}/chunks/${boats.id}`, {
        key,
        body: { chunk_position: 1, text: "apples instead" }
      })
      assert.strictEqual(put.status, 502, JSON.stringify(put.body))
      assert.deepStrictEqual(yield* countsOf(client, knowledge_base_id, artifact.artifact_id), { chunks_completed: 2, chunks_failed: 0, chunks_pending: 0 })
      assert.strictEqual((yield* client.knowledgeBases.getArtifactChunk({ path: { ...path, chunk_id: boats.id } })).text, "boats float on water")
    }))

  it.effect("bad bodies are 422 at their fields, nothing stored; another account's artifact is a 404", () =>
    Effect.gen(function*() {
      const { client, key, knowledge_base_id, artifact_id, chunks } = yield* setup
      const send = (body: unknown) => request("POST", chunks, { key, body })
      const cases: ReadonlyArray<[unknown, ReadonlyArray<unknown>]> = [
        [{ text: "no position" }, [["body", "chunk_position"]]],
        [{ chunk_position: 0 }, [["body", "text"]]],
        [{ chunk_position: -1, text: "x" }, [["body", "chunk_position"]]],
        [{ chunk_position: 1.5, text: "x" }, [["body", "chunk_position"]]],
        [{ chunk_position: 0, text: "  \n " }, [["body", "text"]]],
        [{ chunk_position: 0, text: "x", metadata: "not an object" }, [["body", "metadata"]]]
      ]
      for (const [body, locs] of cases) {
        const response = yield* send(body)
        assert.strictEqual(response.status, 422, JSON.stringify(body))
        assert.deepStrictEqual(issues(response).map((issue: any) => issue.loc), locs, JSON.stringify(body))
      }
      const [first] = (yield* client.knowledgeBases.listArtifactChunks({ path: { knowledge_base_id, artifact_id }, urlParams: {} })).items
      const put = yield* request("PUT", `${chunks}/${first!.id}`, { key, body: { chunk_position: 0 } })
      assert.deepStrictEqual([put.status, issues(put).map((issue: any) => issue.loc)], [422, [["body", "text"]]])
      assert.deepStrictEqual(yield* countsOf(client, knowledge_base_id, artifact_id), { chunks_completed: 2, chunks_failed: 0, chunks_pending: 0 })
      assert.strictEqual((yield* client.knowledgeBases.getArtifactChunk({ path: { knowledge_base_id, artifact_id, chunk_id: first!.id } })).text, first!.text)

      const other = yield* provision()
      const foreign = yield* request("POST", chunks, { key: other.key, body: { chunk_position: 0, text: "theirs" } })
      assert.deepStrictEqual([foreign.status, foreign.body], [404, { detail: `Knowledge base ${knowledge_base_id} not found` }])
      const read = yield* request("GET", `${chunks}/${first!.id}`, { key: other.key })
      assert.strictEqual(read.status, 404)
    }))
})
