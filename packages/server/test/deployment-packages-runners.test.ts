/**
 * Several instances on one database each run the workflow engine with the install of deployment
 * packages (deployment-packages/workflow.ts): on start each starts every unfinished job, and a job
 * accepted by one instance may also be started by another. Two "instances" here are two engines, each with a
 * database client of its own on one shared database: a SQLite file (two connections, as two
 * processes on the file have) or, under `npm run test:pg`, one PostgreSQL schema (two pools, as
 * two servers have). Whatever each of them is handed, every job is installed exactly once, ends
 * SUCCEEDED or FAILED, and neither installer logs a failure.
 */
import { assert, describe, it } from "@effect/vitest"
import { DeploymentPackageInstallJob, SemVerMinVersion } from "@platform-kit/schema"
import { Array as Arr, Context, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as Pg from "pg"
import { Accounts } from "../src/auth/Accounts.js"
import { LifecyclesLive } from "../src/app.js"
import { Simulation } from "../src/engine/Simulation.js"
import { Lifecycles } from "../src/engine/Lifecycles.js"
import { PackageJobsRepo } from "../src/deployment-packages/PackageJobsRepo.js"
import { Ids } from "../src/platform/Ids.js"
import { isPostgresUrl } from "../src/database.js"
import { serverDatabaseLayer } from "../src/fast/database.js"
import { temporaryDirectory, withSearchPath } from "../src/testDatabase.js"
import { eventually } from "../src/testing.js"

/**
 * The URL of a fresh database the instances share, removed with the scope: a schema of the
 * PostgreSQL database of DATABASE_URL, or a SQLite file in a temporary directory.
 */
const sharedDatabase = Effect.gen(function*() {
  const url = process.env.DATABASE_URL ?? "sqlite::memory:"
  if (isPostgresUrl(url)) {
    const schema = `t_${randomBytes(6).toString("hex")}`
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => new Pg.Pool({ connectionString: url, max: 1 })),
      (pool) => Effect.promise(() => pool.end())
    )
    yield* Effect.acquireRelease(
      Effect.promise(() => pool.query(`CREATE SCHEMA ${schema}`)),
      () => Effect.promise(() => pool.query(`DROP SCHEMA ${schema} CASCADE`))
    )
    return withSearchPath(url, schema)
  }
  const dir = yield* temporaryDirectory("runners")
  return `sqlite:${dir}/platform.db`
})

/** What one instance has: its own client of the database at `url` (migrated), and the repositories. */
const instance = (url: string) =>
  PackageJobsRepo.Default.pipe(
    Layer.provideMerge(Accounts.Default),
    Layer.provideMerge(Ids.Live),
    Layer.provideMerge(serverDatabaseLayer(url))
  )

/** A stored PENDING job; odd ones have a constraint that fails the install check. */
const pendingJob = (accountId: string, identityId: string, i: number) =>
  new DeploymentPackageInstallJob({
    id: randomUUID(),
    account_id: accountId,
    deployment_package_id: `pkg-${i}`,
    deployment_package_name: null,
    deployment_package_type: "MODEL",
    version_constraint: new SemVerMinVersion({
      version_constraint_type: "SEMVER_MIN",
      minimum_version: i % 2 === 0 ? "1.2.3" : "not a version"
    }),
    status: "PENDING",
    status_reason: null,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    created_by_user_id: identityId,
    created_by_identity_type: "user"
  })

const installing = /^Installing deployment package job (.+)$/

describe("deployment package installers of several instances", () => {
  it.live("two installers on one database, each handed every job: each job is installed exactly once", () =>
    Effect.gen(function*() {
      const url = yield* sharedDatabase

      // What the installers log: an "Installing …" line per job they take, and any failure.
      const installed: Array<string> = []
      const failures: Array<string> = []
      const collect = Logger.make(({ cause, logLevel, message }) => {
        const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
        const match = installing.exec(text)
        if (match !== null) installed.push(match[1]!)
        else if (LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) failures.push(`${text} ${cause}`)
      })

      const run = Effect.gen(function*() {
        const setup = yield* Layer.build(instance(url))
        const repo = Context.get(setup, PackageJobsRepo)
        const { accountId, identityId } = yield* Context.get(setup, Accounts).provisionUser()
        const allFinished = eventually(Effect.map(repo.unfinished, Option.liftPredicate(Arr.isEmptyReadonlyArray)), 60_000).pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new Error("jobs still unfinished after 60 s")),
            onSome: () => Effect.void
          }))
        )

        // left unfinished before the instances start: each queues all of them on start
        const early = Arr.makeBy(12, (i) => pendingJob(accountId, identityId, i))
        yield* Effect.forEach(early, repo.insert, { discard: true })
        const installers: Array<Context.Tag.Service<Lifecycles>> = []
        for (let i = 0; i < 2; i++) {
          const context = yield* Layer.build(LifecyclesLive.pipe(Layer.provide(Simulation.layer), Layer.provideMerge(instance(url))))
          installers.push(Context.get(context, Lifecycles))
        }
        yield* allFinished

        // accepted while both run, each handed to both
        const late = Arr.makeBy(12, (i) => pendingJob(accountId, identityId, 100 + i))
        for (const job of late) {
          yield* repo.insert(job)
          yield* Effect.forEach(installers, (installer) => installer.start({ workflow: "PackageInstall", id: job.id, account_id: accountId }), {
            concurrency: "unbounded",
            discard: true
          })
        }
        yield* allFinished

        const jobs = [...early, ...late]
        const stored = yield* Effect.forEach(jobs, (job) => repo.get(job.id, [accountId]))
        return { jobs, stored }
      })

      const { jobs, stored } = yield* run.pipe(
        Effect.scoped,
        Effect.provide(Logger.replace(Logger.defaultLogger, collect)),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )

      assert.deepStrictEqual(failures, [])
      assert.deepStrictEqual([...installed].sort(), jobs.map((job) => job.id).sort())
      stored.forEach((job, i) => {
        const installable = i % 2 === 0
        assert.strictEqual(job.status, installable ? "SUCCEEDED" : "FAILED", job.deployment_package_id ?? "")
        assert.strictEqual(job.status_reason === null, installable)
      })
    }).pipe(Effect.scoped))
})
