/**
 * Knowledge bases embedded in an Effect program (the first way to use the kit): the API
 * in-process on in-memory SQLite, background work included, through the derived typed client:
 * chunks given in an upload and files posted in a form are ingested by the engine, then found by
 * a query.
 */
import { assert, describe, it } from "@effect/vitest"
import { makeClient } from "@platform-kit/client"
import { Effect, Option } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { EmbeddedLive } from "./support/embedded.js"
import { eventually } from "../src/testing.js"

describe("knowledge bases embedded in a program", () => {
  it.scoped("uploads of chunks and of posted files ingested in-process, then queried through the typed client", () =>
    Effect.gen(function*() {
      const { key } = yield* Effect.flatMap(Accounts, (accounts) => accounts.provisionUser())
      const client = yield* makeClient({ apiKey: key })
      const kb = yield* client.knowledgeBases.create({ payload: { knowledge_base_name: "embedded", embedding_config: { type: "base" } } })
      const path = { knowledge_base_id: kb.knowledge_base_id }
      const ended = (upload_id: string) =>
        eventually(
          Effect.map(
            client.knowledgeBaseUploads.get({ path: { ...path, upload_id }, urlParams: {} }),
            (upload) => (upload.status === "Running" ? Option.none() : Option.some(upload))
          ),
          60_000
        )

      const chunks = yield* client.knowledgeBaseUploads.create({
        path,
        payload: {
          data_source_config: { source: "LocalChunks", artifact_name: "faq.md", artifact_uri: "local://faq", deduplication_strategy: "Overwrite" },
          chunks: [{ chunk_position: 0, text: "The harbor opens at dawn." }, { chunk_position: 1, text: "Copper lanterns line the pier." }]
        }
      })
      const data = new FormData()
      data.append("files", new Blob(["Meadows bloom in the valley every spring."]), "valley.txt")
      data.append("chunking_strategy_config", JSON.stringify({ strategy: "character" }))
      data.append("data_source_config", "{}")
      data.append("force_reupload", "false")
      const posted = yield* client.knowledgeBaseUploads.uploadFiles({ path, payload: data })
      for (const id of [chunks.upload_id, ...posted.upload_ids]) {
        const upload = yield* ended(id)
        assert.isTrue(Option.isSome(upload), `upload ${id} still running`)
        assert.strictEqual(Option.getOrThrow(upload).status, "Completed")
      }

      const found = yield* client.knowledgeBases.query({ path, payload: { query: "when does the harbor open?", top_k: 2 } })
      assert.strictEqual(found.chunks[0]!.text, "The harbor opens at dawn.")
      const valley = yield* client.knowledgeBases.query({ path, payload: { query: "meadows valley", top_k: 1 } })
      assert.deepStrictEqual(valley.chunks.map((chunk) => [chunk.text, chunk.title]), [["Meadows bloom in the valley every spring.", "valley.txt"]])
      const counted = yield* client.knowledgeBases.get({ path, urlParams: { view: ["ArtifactCount"] } })
      assert.strictEqual(counted.artifact_count, 2)
    }).pipe(Effect.provide(EmbeddedLive)), 60_000)
})
