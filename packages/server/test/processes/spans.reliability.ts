/**
 * Span ingest under kill -9 (docs/spans.md): writers send the SDK tracer's batches
 * (`PUT /v5/spans/batch`, 50 spans each, one trace a batch) until the server is killed with
 * SIGKILL mid-load. After a restart on the same file every batch answered 200 is there whole, a
 * batch cut off by the kill is there whole or not at all (a batch is one transaction), and sending
 * a cut-off batch again stores each of its spans once.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { serverDatabaseLayer } from "../../src/fast/database.js"
import { send } from "../../src/testing/rawHttp.js"
import { cleanup, serverKey, startServer, tempDir } from "../support/processes.js"

const writers = 8
/** Batches answered after which the server is killed (more are in flight then). */
const killAfter = 60
const perBatch = 50
const batchesPerWriter = 40

/** A batch of one trace: its root and the spans under it, as the SDK tracer sends them at their end. */
const batchOf = (trace: string) =>
  Array.from({ length: perBatch }, (_, n) => ({
    id: Crypto.randomUUID(),
    trace_id: trace,
    parent_id: null,
    name: n === 0 ? "request" : `step ${n}`,
    type: "STANDALONE",
    status: n % 7 === 0 ? "ERROR" : "SUCCESS",
    start_timestamp: "2026-12-07T12:45:14.123456+00:00",
    end_timestamp: "2026-12-07T12:45:15.5+00:00",
    input: { query: `question ${n}` },
    output: { answer: "x".repeat(200) },
    metadata: { n }
  }))

describe("span ingest under kill -9", () => {
  it.live("every batch answered is there whole after a restart; a cut-off one whole or absent, and sent again stored once", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("spans")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const headers = { "x-api-key": serverKey }
      const first = yield* Effect.promise(() => startServer({ databaseUrl }))
      const load = yield* Effect.promise(async () => {
        const answered: Array<string> = []
        const cutOff: Array<ReturnType<typeof batchOf>> = []
        let killed = false
        const writer = async () => {
          for (let i = 0; i < batchesPerWriter; i++) {
            const trace = Crypto.randomUUID()
            const items = batchOf(trace)
            try {
              const response = await send({ port: first.port, method: "PUT", path: "/v5/spans/batch", headers, body: { items } })
              assert.strictEqual(response.status, 200, response.text)
              assert.strictEqual(response.json.items.length, perBatch)
              answered.push(trace)
              if (!killed && answered.length >= killAfter) {
                killed = true
                first.child.kill("SIGKILL")
              }
            } catch (error) {
              if (!killed) throw error
              cutOff.push(items)
              return
            }
          }
        }
        await Promise.all(Array.from({ length: writers }, writer))
        return { answered, cutOff, killed, exited: await first.exited }
      })
      assert.isTrue(load.killed)
      assert.strictEqual(load.exited.signal, "SIGKILL")
      assert.isAbove(load.cutOff.length, 0, "batches in flight at the kill")

      const second = yield* Effect.acquireRelease(Effect.promise(() => startServer({ databaseUrl })), (server) => Effect.promise(() => server.stop("SIGTERM")))
      // a cut-off batch sent again (the tracer's retry): each of its spans once
      const again = load.cutOff[0]!
      const resent = yield* Effect.promise(() => send({ port: second.port, method: "PUT", path: "/v5/spans/batch", headers, body: { items: again } }))
      assert.strictEqual(resent.status, 200, resent.text)
      yield* Effect.promise(() => second.stop("SIGTERM"))

      const perTrace = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ trace_id: string; n: number | string; distinct_ids: number | string }>`
          SELECT trace_id, COUNT(*) AS n, COUNT(DISTINCT id) AS distinct_ids FROM spans GROUP BY trace_id`
        return new Map(rows.map((row) => [row.trace_id, [Number(row.n), Number(row.distinct_ids)]]))
      }).pipe(Effect.provide(serverDatabaseLayer(databaseUrl)))
      for (const trace of load.answered) assert.deepStrictEqual(perTrace.get(trace), [perBatch, perBatch], trace)
      for (const items of load.cutOff) {
        const stored = perTrace.get(items[0]!.trace_id)
        if (stored !== undefined) assert.deepStrictEqual(stored, [perBatch, perBatch], "a cut-off batch is whole or absent")
      }
      assert.deepStrictEqual(perTrace.get(again[0]!.trace_id), [perBatch, perBatch])
    }).pipe(Effect.scoped), 90_000)
})
