/**
 * Two server processes on one SQLite file (two instances behind one balancer, or a rolling
 * restart): 200 creates at once through the typed client, split between them, all answer 200 (a
 * writer waits for the other process's write lock; SQLITE_BUSY never surfaces as a 500), and
 * PATCHes of one entity racing through both processes apply one after the other, a task's
 * stream on one shows what is written through the other, and `message/send`s to one task through
 * both reach its agent one after the other.
 */
import { FetchHttpClient } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { type Client, makeClient } from "@platform-kit/client"
import { Array as Arr, Effect, Redacted } from "effect"
import { cleanup, type ServerProcess, serverKey, startServer, tempDir } from "../support/processes.js"
import { assertSerial, assertSerialNameAndTags, writer } from "../support/serial.js"
import { assertSendsSerialAcrossProcesses } from "../support/agentSends.js"
import { assertStreamAcrossProcesses } from "../support/taskStreams.js"

const range = (n: number) => Arr.makeBy(n, (i) => i)

const racers = 40

describe("two servers on one SQLite file", () => {
  it.live("200 parallel creates through both: 200 × 200 OK, 200 rows; racing PATCHes apply one after the other", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("two-servers")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const serve = Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl })),
        (server: ServerProcess) => Effect.promise(() => server.stop("SIGTERM"))
      )
      // one after the other: the first creates and migrates the file
      const a = yield* serve
      const b = yield* serve
      const clients: ReadonlyArray<Client> = yield* Effect.all([a, b].map((server) =>
        makeClient({ apiKey: serverKey, baseUrl: `http://127.0.0.1:${server.port}` })
      ))
      const via = (i: number) => clients[i % 2]!

      const created = yield* Effect.forEach(
        range(200),
        (i) => via(i).evaluations.create({ payload: { name: `parallel ${i}`, tags: [`t${i % 5}`] }, urlParams: {} }),
        { concurrency: 200 }
      )
      assert.strictEqual(new Set(created.map((e) => e.id)).size, 200)
      for (const client of clients) {
        const listed = yield* client.evaluations.list({ urlParams: { limit: 1000 } })
        assert.strictEqual(listed.total, 200)
        const byId = new Map(listed.items.map((e) => [e.id, e]))
        for (const evaluation of created) assert.deepStrictEqual(byId.get(evaluation.id), evaluation)
      }

      // evaluations: name + description (even) against tags + metadata (odd), through both servers
      const evaluation = yield* via(0).evaluations.create({
        payload: { name: "start", description: "start", tags: ["start"], metadata: { writer: "start" } },
        urlParams: {}
      })
      const evaluationAnswers = yield* Effect.forEach(
        range(racers),
        (i) =>
          via(i).evaluations.update({
            path: { evaluation_id: evaluation.id },
            payload: i % 2 === 0
              ? { name: `name ${i}`, description: `description ${i}` }
              : { tags: [`tag-${i}`], metadata: { writer: String(i) } },
            urlParams: {}
          }),
        { concurrency: "unbounded" }
      )
      const finalEvaluation = yield* via(0).evaluations.get({ path: { evaluation_id: evaluation.id }, urlParams: {} })
      for (const answer of [...evaluationAnswers, finalEvaluation]) {
        assert.strictEqual(writer(answer.description), writer(answer.name))
      }
      assertSerialNameAndTags(evaluationAnswers, finalEvaluation)

      // dashboards
      const dashboard = yield* via(0).evaluationDashboards.create({ payload: { name: "start", description: "start", tags: ["start"] } })
      const dashboardAnswers = yield* Effect.forEach(
        range(racers),
        (i) =>
          via(i).evaluationDashboards.update({
            path: { dashboard_id: dashboard.id },
            payload: i % 2 === 0 ? { name: `name ${i}`, description: `description ${i}` } : { tags: [`tag-${i}`] }
          }),
        { concurrency: "unbounded" }
      )
      const finalDashboard = yield* via(1).evaluationDashboards.get({ path: { dashboard_id: dashboard.id }, urlParams: {} })
      assertSerialNameAndTags(dashboardAnswers, finalDashboard)

      // credentials
      const credential = yield* via(0).credentials.create({
        payload: { name: "start", type: "start", payload: Redacted.make("start"), description: "start" }
      })
      const credentialAnswers = yield* Effect.forEach(
        range(racers),
        (i) =>
          via(i).credentials.update({
            path: { credential_id: credential.id },
            payload: i % 2 === 0
              ? { description: `description ${i}`, type: `type-${i}` }
              : { credential_metadata: { writer: String(i) }, payload: Redacted.make(`secret-${i}`) }
          }),
        { concurrency: "unbounded" }
      )
      const metadataWriter = (metadata: unknown) => writer((metadata as { writer?: string } | null)?.writer)
      const finalCredential = yield* via(1).credentials.get({ path: { credential_id: credential.id } })
      assertSerial(
        credentialAnswers.map((answer, i) =>
          i % 2 === 0
            ? { kind: "a", own: writer(answer.description), seen: metadataWriter(answer.credential_metadata) }
            : { kind: "b", own: metadataWriter(answer.credential_metadata), seen: writer(answer.description) }
        ),
        { a: writer(finalCredential.description), b: metadataWriter(finalCredential.credential_metadata) }
      )
      const secret = yield* via(0).credentials.secret({ path: { credential_id: credential.id } })
      assert.strictEqual(Redacted.value(secret.result), `secret-${metadataWriter(finalCredential.credential_metadata)}`)

      // a task's stream on one server shows what is written through the other
      yield* assertStreamAcrossProcesses(via(1), `http://127.0.0.1:${a.port}`, "across-sqlite")
      yield* assertSendsSerialAcrossProcesses(clients, "serial-sqlite")

      // neither server logged a failure
      for (const server of [a, b]) assert.notInclude(server.output(), "request failed")
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped))

  it.live("the control plane's change on one reaches the other within seconds; a server started later keeps its environment", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("two-controls")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const adminKey = "admin-key-of-two-servers"
      const serve = (env: Record<string, string>) =>
        Effect.acquireRelease(
          Effect.promise(() => startServer({ databaseUrl, env: { PLATFORM_ADMIN_KEY: adminKey, ...env } })),
          (server: ServerProcess) => Effect.promise(() => server.stop("SIGTERM"))
        )
      const a = yield* serve({ PLATFORM_PROGRESSION: "timed" })
      const b = yield* serve({ PLATFORM_PROGRESSION: "timed" })
      const controls = (server: ServerProcess, init?: RequestInit) =>
        Effect.promise(async () => {
          const response = await fetch(`http://127.0.0.1:${server.port}/admin/controls`, {
            ...init,
            headers: { "x-admin-key": adminKey, "content-type": "application/json" }
          })
          assert.strictEqual(response.status, 200)
          return (await response.json()) as { progression: string; step_seconds: number }
        })
      /** The controls of `server` once its progression is `progression` (10 s at most). */
      const once = (server: ServerProcess, progression: string) =>
        Effect.gen(function*() {
          let seen = yield* controls(server)
          for (const deadline = Date.now() + 10_000; seen.progression !== progression && Date.now() < deadline;) {
            yield* Effect.sleep("100 millis")
            seen = yield* controls(server)
          }
          return seen
        })
      const changed = yield* controls(a, { method: "PATCH", body: JSON.stringify({ progression: "manual", step_seconds: 7 }) })
      assert.strictEqual(changed.progression, "manual")
      assert.deepInclude(yield* once(b, "manual"), { progression: "manual", step_seconds: 7 })
      // a server started after the change runs by its environment, then by the changes after its start
      const c = yield* serve({ PLATFORM_PROGRESSION: "immediate" })
      yield* Effect.sleep("1500 millis")
      assert.strictEqual((yield* controls(c)).progression, "immediate")
      yield* controls(b, { method: "PATCH", body: JSON.stringify({ progression: "timed" }) })
      assert.strictEqual((yield* once(c, "timed")).progression, "timed")
      assert.strictEqual((yield* once(a, "timed")).progression, "timed")
    }).pipe(Effect.scoped), 90_000)
})
