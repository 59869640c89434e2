/**
 * Lifecycles shared by two server processes on one PostgreSQL database (docs/engine.md "Several
 * processes on one database"): 200 fine-tuning jobs are started through both instances at once
 * (timed progression, one-second steps), one instance is killed (SIGKILL) while they run, and the
 * other completes every one of them: each job ends COMPLETED, and its log holds each of its
 * entries once (no step ran twice, none was lost with the killed process).
 *
 * Runs under `npm run test:pg` only (the `processes-pg` project of vitest.config.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Array as Arr, Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as Pg from "pg"
import { withSearchPath } from "../../src/testDatabase.js"
import { type ServerProcess, serverAccount, serverKey, startServer } from "../support/processes.js"

const baseUrl = process.env.DATABASE_URL ?? ""
const onPostgres = /^postgres(ql)?:\/\//.test(baseUrl)

const jobs = 200
const epochs = 2

/** A pool on the database of DATABASE_URL and a new, empty schema in it, dropped with the scope. */
const emptySchema = Effect.acquireRelease(
  Effect.promise(async () => {
    const pool = new Pg.Pool({ connectionString: baseUrl, max: 2 })
    const schema = `lifecycles_${randomBytes(6).toString("hex")}`
    await pool.query(`CREATE SCHEMA ${schema}`)
    return { pool, schema, url: withSearchPath(baseUrl, schema) }
  }),
  ({ pool, schema }) => Effect.promise(() => pool.query(`DROP SCHEMA ${schema} CASCADE`).then(() => pool.end()))
)

const call = (server: ServerProcess, method: string, path: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method,
      headers: { "x-api-key": serverKey, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, body: (await response.json()) as any }
  })

describe.skipIf(!onPostgres)("lifecycles on two instances of one PostgreSQL database", () => {
  it.live("200 fine-tuning jobs started through both, one instance killed half-way: the other completes each, every step once", () =>
    Effect.gen(function*() {
      const { pool, schema, url } = yield* emptySchema
      // every instance on one database seals credential secrets with the same key
      const env = { PLATFORM_STEP_SECONDS: "1", PLATFORM_SECRET_KEY: "22".repeat(32) }
      const [a, b] = yield* Effect.all(
        [0, 1].map(() =>
          Effect.acquireRelease(
            Effect.promise(() => startServer({ databaseUrl: url, env })),
            (server: ServerProcess) => Effect.promise(() => server.stop("SIGKILL"))
          )
        ),
        { concurrency: "unbounded" }
      )
      const servers = [a!, b!]

      const ids = yield* Effect.forEach(
        Arr.makeBy(jobs, (i) => i),
        (i) =>
          Effect.map(
            call(servers[i % 2]!, "POST", "/v4/fine-tuning-jobs", {
              training_dataset_id: `train-${i}`,
              account_id: serverAccount,
              vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: epochs } }
            }),
            (response) => {
              // on failure, what both instances logged (a 500 here was seen once, not reproduced since)
              if (response.status !== 200) {
                assert.fail(`${response.status} ${JSON.stringify(response.body)}\n--- a:\n${a!.output().slice(-3000)}\n--- b:\n${b!.output().slice(-3000)}`)
              }
              return response.body.id as string
            }
          ),
        { concurrency: 20 }
      )

      // one instance dies while the jobs run (each takes three one-second steps at least)
      b!.child.kill("SIGKILL")
      yield* Effect.promise(() => b!.exited)
      const unfinished = yield* Effect.promise(() =>
        pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.fine_tuning_jobs WHERE status IN ('PENDING', 'RUNNING')`)
      )
      assert.isAbove(Number(unfinished.rows[0]!.n), 0)

      // the survivor takes the dead one's shards over and completes every job
      const deadline = Date.now() + 90_000
      for (;;) {
        const left = yield* Effect.promise(() =>
          pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.fine_tuning_jobs WHERE status <> 'COMPLETED'`)
        )
        if (Number(left.rows[0]!.n) === 0) break
        assert.isBelow(Date.now(), deadline, `${left.rows[0]!.n} jobs not completed`)
        yield* Effect.sleep("500 millis")
      }
      const expected = [
        "Fine-tuning job created, waiting for a trainer",
        "Training started (simulated)",
        ...Arr.makeBy(epochs, (i) => `Epoch ${i + 1}/${epochs}`),
        "Training completed"
      ]
      for (const id of ids) {
        const log = yield* call(a!, "GET", `/v4/fine-tuning-jobs/${id}/events`)
        assert.deepStrictEqual(log.body.map((event: { message: string }) => event.message.split(":")[0]), expected, id)
      }
      const perJob = yield* Effect.promise(() =>
        pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.fine_tuning_job_events GROUP BY job_id HAVING COUNT(*) <> ${expected.length}`)
      )
      assert.strictEqual(perJob.rows.length, 0)
    }).pipe(Effect.scoped), 180_000)
})
