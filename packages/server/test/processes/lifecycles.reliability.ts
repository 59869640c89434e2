/**
 * Lifecycles survive kill -9 (docs/engine.md): the server is killed with SIGKILL while the
 * workflows of deployment package installs it accepted are under way, restarted on the same SQLite
 * file, and every job accepted before the kill reaches its end state (SUCCEEDED, or FAILED with the
 * install check's reason), and stays there; the restarted server, its engine running, exits 0 on
 * SIGTERM.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { cleanup, serverAccount, serverKey, startServer, tempDir } from "../support/processes.js"
import { send } from "../support/rawHttp.js"

const jobs = 60

const installPath = `/v4/deployment-packages/${serverAccount}/install_async`

describe("kill -9 while lifecycles run", () => {
  it.live("every install accepted before the kill ends after a restart, and stays ended", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("lifecycles")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const headers = { "x-api-key": serverKey }

      const first = yield* Effect.promise(() => startServer({ databaseUrl }))
      const accepted = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: jobs }, (_, i) =>
          send({
            port: first.port,
            method: "POST",
            path: installPath,
            headers,
            // odd jobs fail the install check: both end states are reached
            body: {
              deployment_package_id: `pkg-${i}`,
              version_constraint: { version_constraint_type: "SEMVER_MIN", minimum_version: i % 2 === 0 ? "1.2.3" : "one" }
            }
          }).then((response) => {
            assert.strictEqual(response.status, 200, response.text)
            return response.json.deployment_package_job_id as string
          })
        ))
      )
      first.child.kill("SIGKILL")
      assert.strictEqual((yield* Effect.promise(() => first.exited)).signal, "SIGKILL")
      // the kill came while work was under way: jobs not ended yet, as the killed process left them
      // (the last jobs accepted are still in their workflows when the last answer is out)
      const unfinished = yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* SqliteClient.make({ filename: `${dir}/platform.db` })
        const rows = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM deployment_package_jobs WHERE status IN ('PENDING', 'RUNNING')`
        return Number(rows[0]!.n)
      })).pipe(Effect.provide(Reactivity.layer), Effect.orDie)
      assert.isAbove(unfinished, 0)

      const second = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl })),
        (server) => Effect.promise(() => server.stop("SIGTERM"))
      )
      const read = (id: string) =>
        Effect.promise(() => send({ port: second.port, method: "GET", path: `${installPath}/${id}`, headers }))
      /** The job once it has ended, read every 50 ms for at most 30 s. */
      const untilEnded = (id: string) =>
        Effect.gen(function*() {
          for (let attempt = 0; attempt < 600; attempt++) {
            const job = (yield* read(id)).json
            if (job.status === "SUCCEEDED" || job.status === "FAILED") return job
            yield* Effect.sleep("50 millis")
          }
          return assert.fail(`job ${id} did not end`)
        })
      const ended = yield* Effect.forEach(accepted, untilEnded)
      ended.forEach((job, i) => {
        const installable = Number(job.deployment_package_id.slice("pkg-".length)) % 2 === 0
        assert.strictEqual(job.status, installable ? "SUCCEEDED" : "FAILED", job.id)
        assert.strictEqual(job.status_reason === null, installable, job.id)
        assert.strictEqual(job.id, accepted[i])
      })
      // read again a moment later: nothing moves an ended job
      yield* Effect.sleep("500 millis")
      const again = yield* Effect.forEach(accepted, (id) => Effect.map(read(id), (response) => response.json))
      assert.deepStrictEqual(again, ended)

      const stopped = yield* Effect.promise(() => second.stop("SIGTERM"))
      assert.strictEqual(stopped.code, 0, second.output())
    }).pipe(Effect.scoped), 120_000)
})
