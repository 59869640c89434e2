/**
 * Install jobs are claimed under a row lock (`PackageJobsRepo.claim`): when several instances
 * share one database and each queues the unfinished jobs on start, a job is installed by one of
 * them only. Two transactions on one database stand in for two instances here; the same
 * assertions hold on SQLite (one writer) and PostgreSQL (`FOR UPDATE`: the second waits for the
 * first and then finds the job moved on, or still there when the first rolled back).
 */
import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { DeploymentPackageInstallJob } from "@platform-kit/schema"
import { Deferred, Effect, Fiber, Option, TestServices } from "effect"
import { randomUUID } from "node:crypto"
import { PackageJobsRepo } from "../src/deployment-packages/PackageJobsRepo.js"
import { provision, TestServerLive } from "../src/testing.js"

const pendingJob = (accountId: string, identityId: string) =>
  new DeploymentPackageInstallJob({
    id: randomUUID(),
    account_id: accountId,
    deployment_package_id: "pkg",
    deployment_package_name: null,
    deployment_package_type: "MODEL",
    version_constraint: null,
    status: "PENDING",
    status_reason: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    created_by_user_id: identityId,
    created_by_identity_type: "user"
  })

layer(TestServerLive)("deployment package job claims", (it) => {
  it.effect("a job one transaction has claimed is not handed to another, neither while held nor once finished", () =>
    Effect.gen(function*() {
      const { accountId, identityId } = yield* provision()
      const repo = yield* PackageJobsRepo
      const sql = yield* SqlClient.SqlClient
      const job = pendingJob(accountId, identityId)
      yield* repo.insert(job)
      const ref = { id: job.id, account_id: accountId }

      const claimed = yield* Deferred.make<void>()
      const first = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        const got = yield* repo.claim(ref)
        yield* Deferred.succeed(claimed, undefined)
        if (Option.isSome(got)) yield* repo.update(new DeploymentPackageInstallJob({ ...got.value, status: "SUCCEEDED" }))
        return Option.isSome(got)
      })))
      yield* Deferred.await(claimed)
      const second = yield* sql.withTransaction(repo.claim(ref))

      assert.isTrue(yield* Fiber.join(first))
      assert.isTrue(Option.isNone(second))
      const stored = yield* repo.findById(job.id, [accountId])
      assert.strictEqual(Option.getOrThrow(stored).status, "SUCCEEDED")
    }).pipe(Effect.provide(PackageJobsRepo.Default)))

  it.effect("a claim whose transaction rolls back leaves the job to the next claimant", () =>
    Effect.gen(function*() {
      const { accountId, identityId } = yield* provision()
      const repo = yield* PackageJobsRepo
      const sql = yield* SqlClient.SqlClient
      const job = pendingJob(accountId, identityId)
      yield* repo.insert(job)
      const ref = { id: job.id, account_id: accountId }

      const claimed = yield* Deferred.make<void>()
      const first = yield* Effect.fork(Effect.exit(sql.withTransaction(Effect.gen(function*() {
        const got = yield* repo.claim(ref)
        assert.isTrue(Option.isSome(got))
        yield* repo.update(new DeploymentPackageInstallJob({ ...Option.getOrThrow(got), status: "RUNNING" }))
        yield* Deferred.succeed(claimed, undefined)
        // the step fails a moment after its write (the other claim is waiting by then): the
        // transaction rolls back
        yield* TestServices.provideLive(Effect.sleep("200 millis"))
        return yield* Effect.fail("crashed")
      }))))
      yield* Deferred.await(claimed)
      const second = yield* sql.withTransaction(Effect.gen(function*() {
        const got = yield* repo.claim(ref)
        if (Option.isSome(got)) yield* repo.update(new DeploymentPackageInstallJob({ ...got.value, status: "RUNNING" }))
        return got
      }))
      assert.isTrue((yield* Fiber.join(first))._tag === "Failure")
      assert.strictEqual(Option.getOrThrow(second).status, "PENDING")
      assert.strictEqual(Option.getOrThrow(yield* repo.findById(job.id, [accountId])).status, "RUNNING")
    }).pipe(Effect.provide(PackageJobsRepo.Default)))

  it.effect("many claimants of many jobs at once: every job is taken exactly once", () =>
    Effect.gen(function*() {
      const { accountId, identityId } = yield* provision()
      const repo = yield* PackageJobsRepo
      const sql = yield* SqlClient.SqlClient
      const jobs = Array.from({ length: 10 }, () => pendingJob(accountId, identityId))
      yield* Effect.forEach(jobs, repo.insert, { discard: true })

      // four "instances", each trying every job, as each would after reading the unfinished list
      const taken = yield* Effect.forEach(
        Array.from({ length: 4 }, (_, instance) => instance),
        (instance) =>
          Effect.forEach(jobs, (job) =>
            sql.withTransaction(Effect.gen(function*() {
              const got = yield* repo.claim({ id: job.id, account_id: accountId })
              if (Option.isNone(got)) return []
              yield* repo.update(new DeploymentPackageInstallJob({ ...got.value, status: "SUCCEEDED", status_reason: `by ${instance}` }))
              return [job.id]
            }))).pipe(Effect.map((ids) => ids.flat())),
        { concurrency: "unbounded" }
      )
      const all = taken.flat()
      assert.strictEqual(all.length, jobs.length)
      assert.deepStrictEqual([...all].sort(), jobs.map((job) => job.id).sort())
    }).pipe(Effect.provide(PackageJobsRepo.Default)))
})
