/**
 * Agent run schedules across processes (docs/agent-tasks.md "Run schedules"): two servers on one
 * SQLite file fire each fire of a schedule once (one fire row per second, one `message/send` per
 * fire); a server killed with SIGKILL while fires are being delivered leaves them pending, and the
 * restarted server delivers each once their leases run out, and fires on.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { send } from "../../src/testing/rawHttp.js"
import { cleanup, serverKey, startServer, tempDir } from "../support/processes.js"

const headers = { "x-api-key": serverKey }

/** An ACP server answering `message/send` after `delayMs` ("You said: …"), keeping every call it received. */
const slowAgent = (delayMs: number) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly server: Http.Server; readonly seen: Array<any> }>((resume) => {
      const seen: Array<any> = []
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          seen.push(body)
          const line = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id: body.id, result, error: null }) + "\n"
          setTimeout(() => {
            res.writeHead(200, { "content-type": "application/x-ndjson" })
            res.end(line({ type: "full", index: 0, content: { type: "text", author: "agent", content: `You said: ${body.params.content.content}` } }))
          }, delayMs)
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen })))
    }),
    ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

const post = (port: number, path: string, body?: unknown) =>
  Effect.promise(() => send({ port, method: "POST", path, headers, body })).pipe(
    Effect.tap((response) => assert.strictEqual(response.status, 200, response.text)),
    Effect.map((response) => response.json)
  )

interface FireRow {
  readonly fire_id: string
  readonly schedule_id: string
  readonly scheduled_at: string
  readonly status: string
  readonly reason: string | null
  readonly task_id: string | null
}

/** The fires stored in the database file, oldest first. */
const firesIn = (dir: string) =>
  Effect.scoped(Effect.gen(function*() {
    const sql = yield* SqliteClient.make({ filename: `${dir}/platform.db` })
    return yield* sql<FireRow>`SELECT fire_id, schedule_id, scheduled_at, status, reason, task_id FROM agent_run_schedule_fires ORDER BY scheduled_at, fire_id`
  })).pipe(Effect.provide(Reactivity.layer), Effect.orDie)

/** The message/send calls an agent got for the task of each fire, by task name. */
const sendsByTask = (seen: ReadonlyArray<any>) => {
  const counts = new Map<string, number>()
  for (const call of seen) if (call.method === "message/send") counts.set(call.params.task.name, (counts.get(call.params.task.name) ?? 0) + 1)
  return counts
}

describe("run schedules across processes", () => {
  it.live("two servers on one SQLite file: one fire a second, each delivered once", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("run-schedules-two")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const serve = Effect.acquireRelease(Effect.promise(() => startServer({ databaseUrl })), (server) => Effect.promise(() => server.stop("SIGTERM")))
      const a = yield* serve
      const b = yield* serve
      const agentServer = yield* slowAgent(0)
      const agent = yield* post(a.port, "/agents/register", { name: "twice", description: "d", acp_url: agentServer.url, acp_type: "sync" })
      const schedules = []
      for (const name of ["one", "two", "three"]) {
        schedules.push(yield* post(b.port, `/agents/${agent.id}/schedules`, { name, initial_input: { content: name }, interval_seconds: 1 }))
      }
      // both engines load within seconds; then several fires of each schedule
      yield* Effect.sleep("6 seconds")
      for (const schedule of schedules) yield* post(a.port, `/agents/${agent.id}/schedules/${schedule.id}/pause`, {})
      yield* Effect.sleep("1500 millis")
      const fires = yield* firesIn(dir)
      const sends = sendsByTask(agentServer.seen)
      for (const schedule of schedules) {
        const own = fires.filter((fire) => fire.schedule_id === schedule.id)
        assert.isAtLeast(own.length, 3, schedule.name)
        // one fire per second, none twice, none left out (a tick later than the interval on a busy
        // machine stores the due times it passed as `missed`)
        for (let i = 1; i < own.length; i++) {
          const gap = Date.parse(own[i]!.scheduled_at) - Date.parse(own[i - 1]!.scheduled_at)
          assert.strictEqual(gap, 1_000, `${schedule.name}: ${gap} ms between fires`)
        }
        // each launched fire's input sent once; a fire due while the one before was still being
        // delivered is skipped (overlap), one delivered after the pause too (schedule_paused), one a
        // late tick passed too (missed): never sent
        for (const fire of own) {
          const sent = sends.get(`scheduled-run:${schedule.id}:${fire.fire_id}`) ?? 0
          if (fire.status === "launched") assert.strictEqual(sent, 1, fire.fire_id)
          else {
            assert.deepStrictEqual([fire.status, sent], ["skipped", 0], fire.fire_id)
            assert.include(["overlap", "schedule_paused", "missed"], fire.reason, fire.fire_id)
          }
        }
        assert.isAtLeast(own.filter((fire) => fire.status === "launched").length, 2, schedule.name)
      }
      for (const server of [a, b]) assert.notInclude(server.output(), "request failed")
    }).pipe(Effect.scoped), 90_000)

  it.live("kill -9 while fires are delivered: after a restart each is delivered, and the schedule fires on", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("run-schedules-kill")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      // the agent answers in 3 s: at any moment a fire of the schedule is being delivered
      const agentServer = yield* slowAgent(3_000)
      const first = yield* Effect.promise(() => startServer({ databaseUrl }))
      const agent = yield* post(first.port, "/agents/register", { name: "killed", description: "d", acp_url: agentServer.url, acp_type: "sync" })
      const schedule = yield* post(first.port, `/agents/${agent.id}/schedules`, { name: "every-second", initial_input: { content: "tick" }, interval_seconds: 1 })
      // kill once a fire is pending and its input was sent to the agent (its answer not back yet)
      let pending: ReadonlyArray<FireRow> = []
      for (let i = 0; i < 300 && pending.length === 0; i++) {
        yield* Effect.sleep("100 millis")
        const sent = new Set(agentServer.seen.filter((call) => call.method === "message/send").map((call) => call.params.task.name))
        pending = (yield* firesIn(dir)).filter((fire) => fire.status === "pending" && sent.has(`scheduled-run:${schedule.id}:${fire.fire_id}`))
      }
      assert.isAbove(pending.length, 0, "a fire in delivery")
      first.child.kill("SIGKILL")
      assert.strictEqual((yield* Effect.promise(() => first.exited)).signal, "SIGKILL")
      const killedAt = Date.now()

      const second = yield* Effect.acquireRelease(Effect.promise(() => startServer({ databaseUrl })), (server) => Effect.promise(() => server.stop("SIGTERM")))
      // the killed process's lease (30 s) runs out, then the restarted one delivers the fire
      let ended: ReadonlyArray<FireRow> = []
      for (let i = 0; i < 500; i++) {
        yield* Effect.sleep("100 millis")
        const fires = yield* firesIn(dir)
        ended = pending.map((fire) => fires.find((row) => row.fire_id === fire.fire_id)!)
        if (ended.every((fire) => fire.status !== "pending")) break
      }
      for (const fire of ended) {
        assert.strictEqual(fire.status, "launched", fire.fire_id)
        const task = (yield* Effect.promise(() => send({ port: second.port, method: "GET", path: `/tasks/${fire.task_id}`, headers }))).json
        assert.strictEqual(task.name, `scheduled-run:${schedule.id}:${fire.fire_id}`)
        assert.strictEqual(task.task_metadata.scheduled_input_delivered, true)
        // at least once: sent before the kill, and again after it (the first answer never recorded)
        assert.isAtLeast(sendsByTask(agentServer.seen).get(task.name) ?? 0, 2)
      }
      // the schedule fires on after the restart (a fire while one is pending is skipped: overlap)
      let after: ReadonlyArray<FireRow> = []
      for (let i = 0; i < 150 && !after.some((fire) => fire.status === "launched"); i++) {
        yield* Effect.sleep("100 millis")
        after = (yield* firesIn(dir)).filter((fire) => Date.parse(fire.scheduled_at) > killedAt)
      }
      assert.isTrue(after.some((fire) => fire.status === "launched"), JSON.stringify(after.slice(0, 5)))
      assert.isTrue(after.some((fire) => fire.status === "skipped" && fire.reason === "overlap"))
      assert.notInclude(second.output(), "request failed")
    }).pipe(Effect.scoped), 120_000)
})
