/**
 * An upload survives kill -9 (docs/knowledge-bases.md "Uploads"): the server is killed with SIGKILL
 * while it ingests 300 files whose embeddings come from an upstream of the test's own on
 * 127.0.0.1, restarted on the same SQLite file, and the upload completes: every file an artifact
 * with its one chunk, no chunk twice; every file's text sent to the upstream, none more than twice
 * (a file in flight at the kill is embedded again), the repeats within one batch.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { callServer, cleanup, serverAccount, startServer, tempDir, upstreamDeployment } from "../support/processes.js"
import { upstream } from "../support/upstream.js"

const files = 300
const batchSize = 16

describe("kill -9 while an upload ingests", () => {
  it.scopedLive("after a restart the upload completes: every file's chunk once, each file embedded at most twice", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("uploads")), (dir) => Effect.sync(() => cleanup(dir)))
      const store = Path.join(dir, "store")
      Fs.mkdirSync(Path.join(store, "docs"), { recursive: true })
      for (let i = 0; i < files; i++) Fs.writeFileSync(Path.join(store, "docs", `doc-${String(i).padStart(3, "0")}.txt`), `document number ${i}`)
      const databaseUrl = `sqlite:${dir}/platform.db`
      const env = { PLATFORM_PROGRESSION: "immediate", PLATFORM_OBJECT_STORE_ROOT: store }
      // each embedding after 10 ms: the 300 files take a few seconds
      const server = yield* upstream((received) => ({
        status: 200,
        delayMs: 10,
        body: {
          object: "list",
          model: "emb",
          data: received.body.input.map((_: string, index: number) => ({ object: "embedding", index, embedding: [1, index, 0] })),
          usage: { prompt_tokens: 1, total_tokens: 1 }
        }
      }))

      const first = yield* Effect.promise(() => startServer({ databaseUrl, env }))
      const deployment = yield* upstreamDeployment(first.port, { name: "emb", model_type: "EMBEDDING", base_url: server.url, model: "emb" })
      const kb = yield* callServer(first.port, "POST", "/v4/knowledge-bases", {
        knowledge_base_name: "docs",
        embedding_config: { type: "models_api", model_deployment_id: deployment.id },
        account_id: serverAccount
      })
      const base = `/v4/knowledge-bases/${kb.knowledge_base_id}`
      const created = yield* callServer(first.port, "POST", `${base}/uploads`, {
        data_source_config: { source: "S3", s3_bucket: "docs" },
        chunking_strategy_config: { strategy: "character" }
      })
      // killed part-way: some files done, some not
      for (;;) {
        const upload = yield* callServer(first.port, "GET", `${base}/uploads/${created.upload_id}`)
        if (upload.artifacts_status.artifacts_completed >= 60) break
        yield* Effect.sleep("5 millis")
      }
      first.child.kill("SIGKILL")
      assert.strictEqual((yield* Effect.promise(() => first.exited)).signal, "SIGKILL")
      assert.isBelow(server.received.length, files)

      const second = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl, env })),
        (server) => Effect.promise(() => server.stop("SIGTERM"))
      )
      let upload = yield* callServer(second.port, "GET", `${base}/uploads/${created.upload_id}`)
      for (const deadline = Date.now() + 90_000; upload.status === "Running" && Date.now() < deadline;) {
        yield* Effect.sleep("100 millis")
        upload = yield* callServer(second.port, "GET", `${base}/uploads/${created.upload_id}`)
      }
      assert.strictEqual(upload.status, "Completed", JSON.stringify(upload.artifacts_status))
      assert.strictEqual(upload.status_reason, `${files} of ${files} artifacts completed`)
      assert.strictEqual(upload.artifacts_status.artifacts_completed, files)

      // every file's one chunk, none twice
      const chunks = (yield* callServer(second.port, "GET", `${base}/chunks?max_chunks=2000`)).chunks.map((chunk: any) => chunk.text).sort()
      assert.deepStrictEqual(chunks, Array.from({ length: files }, (_, i) => `document number ${i}`).sort())
      const kbRead = yield* callServer(second.port, "GET", `${base}?view=ArtifactCount`)
      assert.strictEqual(kbRead.artifact_count, files)

      // the upstream's count: every file embedded, none more than twice, the repeats within one batch
      const sent = new Map<string, number>()
      for (const request of server.received) for (const text of request.body.input) sent.set(text, (sent.get(text) ?? 0) + 1)
      assert.strictEqual(sent.size, files)
      const repeated = [...sent.values()].filter((count) => count > 1)
      assert.isTrue(repeated.every((count) => count === 2), JSON.stringify(repeated))
      assert.isAtMost(repeated.length, batchSize)
    }), { timeout: 180_000 })
})
