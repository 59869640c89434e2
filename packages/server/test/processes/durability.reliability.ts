/**
 * Durability: the server is killed with SIGKILL in the middle of a write load (no shutdown of any
 * kind), restarted on the same SQLite file, and every write that had been answered 200 is there,
 * exactly as answered. With WAL and `synchronous = FULL` (the default) a 200 means committed.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { serverDatabaseLayer } from "../../src/fast/database.js"
import { send, type WireResponse } from "../../src/testing/rawHttp.js"
import { cleanup, serverKey, startServer, tempDir } from "../support/processes.js"

/** Writers sending creates at once, each one after the other. */
const writers = 16
/** Answered creates after which the server is killed (more are in flight then). */
const killAfter = 150
/** Each writer stops after this many attempts, killed or not (the loop is bounded). */
const attemptsPerWriter = 100

describe("kill -9 mid-load", () => {
  it.live("every create answered 200 before the kill is there after a restart, intact", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("durability")), (dir) => Effect.sync(() => cleanup(dir)))
      const file = `${dir}/platform.db`
      const databaseUrl = `sqlite:${file}`
      const headers = { "x-api-key": serverKey }

      const first = yield* Effect.promise(() => startServer({ databaseUrl }))
      const load = yield* Effect.promise(async () => {
        const acknowledged: Array<WireResponse> = []
        let failed = 0
        let killed = false
        const writer = async (w: number) => {
          for (let i = 0; i < attemptsPerWriter; i++) {
            try {
              const response = await send({
                port: first.port,
                method: "POST",
                path: "/v5/evaluations",
                headers,
                body: {
                  name: `writer ${w} #${i}`,
                  description: "x".repeat(2048),
                  tags: [`w${w}`, `i${i}`],
                  metadata: { writer: w, attempt: i, nested: { list: [w, i], flag: i % 2 === 0 } }
                }
              })
              assert.strictEqual(response.status, 200, response.text)
              acknowledged.push(response)
              if (!killed && acknowledged.length >= killAfter) {
                killed = true
                first.child.kill("SIGKILL")
              }
            } catch (error) {
              if (!killed) throw error
              failed++
              return
            }
          }
        }
        await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)))
        return { acknowledged, failed, killed, exited: await first.exited }
      })
      assert.isTrue(load.killed)
      assert.strictEqual(load.exited.signal, "SIGKILL")
      assert.isAtLeast(load.acknowledged.length, killAfter)
      // some creates were cut off by the kill: the load was running
      assert.isAbove(load.failed, 0)
      // killed, not closed: the write-ahead log is still there, to be recovered on open
      assert.isTrue(Fs.existsSync(`${file}-wal`))

      const second = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl })),
        (server) => Effect.promise(() => server.stop("SIGTERM"))
      )
      const reads = yield* Effect.promise(() =>
        Promise.all(load.acknowledged.map((created) =>
          send({ port: second.port, method: "GET", path: `/v5/evaluations/${created.json.id}`, headers })
        ))
      )
      reads.forEach((read, i) => {
        assert.strictEqual(read.status, 200, read.text)
        assert.deepStrictEqual(read.json, load.acknowledged[i]!.json)
      })
      // the list agrees (creates cut off mid-flight may or may not have committed)
      const listed = yield* Effect.promise(() =>
        send({ port: second.port, method: "GET", path: "/v5/evaluations?limit=10000", headers })
      )
      assert.isAtLeast(listed.json.total, load.acknowledged.length)
      const ids = new Set(listed.json.items.map((item: { id: string }) => item.id))
      for (const created of load.acknowledged) assert.isTrue(ids.has(created.json.id))
      yield* Effect.promise(() => second.stop("SIGTERM"))

      // and the file itself is sound
      const integrity = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ integrity_check: string }>`PRAGMA integrity_check`
      }).pipe(Effect.provide(serverDatabaseLayer(databaseUrl)))
      assert.deepStrictEqual(integrity.map((row) => row.integrity_check), ["ok"])
    }).pipe(Effect.scoped))
})
