/**
 * SIGTERM, as an orchestrator sends it: the server stops accepting connections, finishes the
 * requests already in flight, closes the database cleanly and exits 0.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import { serverDatabaseLayer } from "../../src/fast/database.js"
import { openStream, readResponse, send, start } from "../../src/testing/rawHttp.js"
import { cleanup, serverKey, startServer, tempDir } from "../support/processes.js"

/** Whether a new TCP connection to `port` is accepted, refused, or fails otherwise. */
const connect = (port: number): Promise<string> =>
  new Promise((resolve) => {
    const socket = Net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve("accepted")
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"))
  })

/** Tries to connect until refused (bounded); answers the last outcome. */
const untilRefused = async (port: number) => {
  let outcome = await connect(port)
  for (let attempt = 0; outcome === "accepted" && attempt < 300; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    outcome = await connect(port)
  }
  return outcome
}

describe("shutdown on SIGTERM", () => {
  it.live("stops accepting, finishes the request in flight (200), closes the database, exits 0", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("shutdown")), (dir) => Effect.sync(() => cleanup(dir)))
      const file = `${dir}/platform.db`
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl: `sqlite:${file}` })),
        (server) => Effect.promise(() => server.stop("SIGKILL"))
      )
      const headers = { "x-api-key": serverKey, "content-type": "application/json" }

      const outcome = yield* Effect.promise(async () => {
        // an idle keep-alive connection must not hold the shutdown up
        const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
        const warm = await new Promise<number>((resolve, reject) => {
          Http.get({ host: "127.0.0.1", port: server.port, path: "/health", agent }, (response) =>
            readResponse(response).then((r) => resolve(r.status), reject)).once("error", reject)
        })

        // the request in flight: the server has parsed its headers and runs its handler (it
        // answered `100 Continue`), and waits for the body
        const body = JSON.stringify({ name: "in flight at SIGTERM" })
        const inFlight = start({
          port: server.port,
          method: "POST",
          path: "/v5/evaluations",
          headers: { ...headers, "content-length": Buffer.byteLength(body), expect: "100-continue" }
        })
        await new Promise<void>((resolve) => inFlight.request.once("continue", () => resolve()))

        server.child.kill("SIGTERM")
        const afterSigterm = await untilRefused(server.port)
        const stillRunning = server.child.exitCode === null

        inFlight.request.end(body)
        const response = await inFlight.response
        const exited = await server.exited
        agent.destroy()
        return { warm, afterSigterm, stillRunning, response, exited }
      })

      assert.strictEqual(outcome.warm, 200)
      assert.strictEqual(outcome.afterSigterm, "ECONNREFUSED")
      assert.isTrue(outcome.stillRunning, "the server waits for the request in flight")
      assert.strictEqual(outcome.response.status, 200)
      assert.strictEqual(outcome.response.json.name, "in flight at SIGTERM")
      assert.deepStrictEqual(outcome.exited, { code: 0, signal: null })
      // a clean close checkpoints the write-ahead log into the file and removes it
      assert.isFalse(Fs.existsSync(`${file}-wal`), "the database was closed cleanly")

      // the write of the request finished at shutdown is in the file
      const stored = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ id: string }>`SELECT id FROM evaluations`
      }).pipe(Effect.provide(serverDatabaseLayer(`sqlite:${file}`)))
      assert.deepStrictEqual(stored.map((row) => row.id), [outcome.response.json.id])
    }).pipe(Effect.scoped))

  it.live("a server with a task stream open exits 0 on SIGTERM, the stream ended with its last chunk", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("shutdown-stream")), (dir) => Effect.sync(() => cleanup(dir)))
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl: `sqlite:${dir}/platform.db` })),
        (server) => Effect.promise(() => server.stop("SIGKILL"))
      )
      const headers = { "x-api-key": serverKey }
      const outcome = yield* Effect.promise(async () => {
        const agent = await send({
          port: server.port,
          method: "POST",
          path: "/agents/register",
          headers,
          body: { name: "long-running", description: "d", acp_url: "http://127.0.0.1:9", acp_type: "sync" }
        })
        const task = await send({
          port: server.port,
          method: "POST",
          path: `/agents/${agent.json.id}/rpc`,
          headers,
          body: { jsonrpc: "2.0", id: 1, method: "task/create", params: { name: "days" } }
        })
        // a subscriber of the task's stream, its `connected` frame come
        const stream = await openStream(server.port, `/tasks/${task.json.result.id}/stream`, serverKey)
        const exited = await server.stop("SIGTERM")
        await stream.closed
        return { exited, text: stream.text() }
      })
      assert.deepStrictEqual(outcome.exited, { code: 0, signal: null })
      assert.isTrue(outcome.text.endsWith("\r\n0\r\n\r\n"), JSON.stringify(outcome.text.slice(-60)))
    }).pipe(Effect.scoped))

  it.live("a server with nothing in flight exits 0 on SIGTERM, and a restart serves the same data", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("restart")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const first = yield* Effect.promise(() => startServer({ databaseUrl }))
      const created = yield* Effect.promise(() =>
        send({
          port: first.port,
          method: "POST",
          path: "/v5/evaluations",
          headers: { "x-api-key": serverKey },
          body: { name: "kept" }
        })
      )
      assert.strictEqual(created.status, 200)
      assert.deepStrictEqual(yield* Effect.promise(() => first.stop("SIGTERM")), { code: 0, signal: null })
      const second = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl })),
        (server) => Effect.promise(() => server.stop("SIGKILL"))
      )
      const read = yield* Effect.promise(() =>
        send({ port: second.port, method: "GET", path: `/v5/evaluations/${created.json.id}`, headers: { "x-api-key": serverKey } })
      )
      assert.deepStrictEqual(read.json, created.json)
    }).pipe(Effect.scoped))
})
