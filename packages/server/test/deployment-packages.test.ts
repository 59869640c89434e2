import { assert, describe, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import type { Client } from "@platform-kit/client"
import { DeploymentPackageInstallJob, Forbidden, type InstallDeploymentPackage, type VersionConstraint } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { constraintProblem, installProblem } from "../src/deployment-packages/installCheck.js"
import { LifecyclesLive } from "../src/app.js"
import { Simulation } from "../src/engine/Simulation.js"
import { PackageJobsRepo } from "../src/deployment-packages/PackageJobsRepo.js"
import { eventually, isoPattern as iso, issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const installPath = (accountId: string) => `/v4/deployment-packages/${accountId}/install_async`
const jobPath = (accountId: string, jobId: string) => `${installPath(accountId)}/${jobId}`

const getJob = (client: Client, accountId: string, jobId: string) =>
  client.deploymentPackages.getInstallJob({ path: { account_id: accountId, deployment_package_job_id: jobId } })

/** Waits (in real time) until the installer has finished the job, and answers it as read over HTTP. */
const finished = (client: Client, accountId: string, jobId: string) =>
  Effect.gen(function*() {
    const outcome = yield* eventually(
      Effect.map(getJob(client, accountId, jobId), Option.liftPredicate((job) => job.status === "SUCCEEDED" || job.status === "FAILED"))
    )
    return Option.isSome(outcome) ? outcome.value : assert.fail(`job ${jobId} did not finish`)
  })

/** Installs with `payload` as the caller and waits for the outcome. */
const installAndWait = (caller: { accountId: string; client: Client }, payload: Partial<InstallDeploymentPackage>) =>
  Effect.gen(function*() {
    const started = yield* caller.client.deploymentPackages.installAsync({ path: { account_id: caller.accountId }, payload })
    return yield* finished(caller.client, caller.accountId, started.deployment_package_job_id)
  })

/** How many install jobs `accountId` has, read from the table. */
const jobCount = (accountId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM deployment_package_jobs WHERE account_id = ${accountId}`
    return Number(rows[0]!.n)
  }).pipe(Effect.orDie)

layer(TestServerLive)("deployment package install jobs", (it) => {
  it.effect("install answers the job id; the job reads back with every field and ends SUCCEEDED", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const response = yield* request("POST", installPath(accountId), {
        key,
        body: {
          deployment_package_id: "pkg-1",
          deployment_package_name: "support-bot",
          deployment_package_type: "AGENTS_CONFIG",
          version_constraint: { version_constraint_type: "SEMVER_MIN", minimum_version: "1.2.3" },
          status: "FAILED",
          account_id: "ignored"
        }
      })
      assert.strictEqual(response.status, 200)
      const jobId = response.body.deployment_package_job_id
      assert.match(jobId, uuid)
      assert.deepStrictEqual(response.body, { deployment_package_job_id: jobId, account_id: accountId })

      const expected = {
        id: jobId,
        account_id: accountId,
        deployment_package_id: "pkg-1",
        deployment_package_name: "support-bot",
        deployment_package_type: "AGENTS_CONFIG",
        version_constraint: { version_constraint_type: "SEMVER_MIN", minimum_version: "1.2.3" },
        created_by_user_id: identityId,
        created_by_identity_type: "user"
      } as const
      const early = yield* getJob(client, accountId, jobId)
      assert.include(["PENDING", "RUNNING", "SUCCEEDED"], early.status)
      assert.match(early.created_at, iso)

      const done = yield* finished(client, accountId, jobId)
      assert.match(done.updated_at, iso)
      assert.isTrue(done.updated_at >= done.created_at)
      assert.deepStrictEqual(done, {
        ...expected,
        status: "SUCCEEDED",
        status_reason: null,
        created_at: early.created_at,
        updated_at: done.updated_at
      })

      const viaClient = yield* client.deploymentPackages.getInstallJob({
        path: { account_id: accountId, deployment_package_job_id: jobId }
      })
      assert.strictEqual(viaClient.status, "SUCCEEDED")
      assert.strictEqual(viaClient.version_constraint?.version_constraint_type, "SEMVER_MIN")
    }))

  it.effect("install (synchronous) answers when the job has ended: INSTALLED, or FAILED with the reason; the job is the async one's", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const installed = yield* client.deploymentPackages.install({
        path: { account_id: accountId },
        payload: {
          deployment_package_name: "support-bot",
          version_constraint: { version_constraint_type: "SEMVER_MIN", minimum_version: "1.2.3" }
        }
      })
      const installation = installed.package_installation
      assert.deepStrictEqual({ ...installation }, {
        id: installation.id,
        created_at: installation.created_at,
        created_by_user_id: identityId,
        organization_id: accountId,
        package_version_id: "support-bot@>=1.2.3",
        account_id: accountId,
        install_log: "installed support-bot",
        status: "INSTALLED",
        deleted_at: null,
        state: null
      })
      assert.match(installation.created_at, iso)
      // the installation is the install job, ended, readable under install_async
      const job = yield* getJob(client, accountId, installation.id)
      assert.strictEqual(job.status, "SUCCEEDED")

      const exact = yield* request("POST", `/v4/deployment-packages/${accountId}/install`, {
        key,
        body: { deployment_package_id: "pkg-9", version_constraint: { version_constraint_type: "EXACT_VERSION", package_version_id: "v-42" } }
      })
      assert.strictEqual(exact.status, 200)
      assert.strictEqual(exact.body.package_installation.package_version_id, "v-42")

      // no package named: the job fails, and the answer says why (200: the install ran and failed)
      const failed = yield* request("POST", `/v4/deployment-packages/${accountId}/install`, { key })
      assert.strictEqual(failed.status, 200)
      assert.strictEqual(failed.body.package_installation.status, "FAILED")
      assert.strictEqual(failed.body.package_installation.install_log, "No package named: give deployment_package_id or deployment_package_name")
      assert.strictEqual(failed.body.package_installation.package_version_id, "(no package)@latest")

      // a bad body is a 422 and starts nothing; another account is a 403
      const before = yield* jobCount(accountId)
      const bad = yield* request("POST", `/v4/deployment-packages/${accountId}/install`, { key, body: { deployment_package_type: "NOPE" } })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [{ loc: ["body", "deployment_package_type"], type: "literal_error" }])
      const other = yield* provision()
      const foreign = yield* request("POST", `/v4/deployment-packages/${other.accountId}/install`, { key, body: {} })
      assert.strictEqual(foreign.status, 403)
      assert.strictEqual(yield* jobCount(accountId), before)
      assert.strictEqual(yield* jobCount(other.accountId), 0)
    }))

  it.effect("a poller sees the states in order: PENDING, RUNNING, then the end, never back", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const order = ["PENDING", "RUNNING", "SUCCEEDED"]
      const jobIds = yield* Effect.forEach([1, 2, 3, 4, 5], (i) =>
        Effect.map(
          client.deploymentPackages.installAsync({ path: { account_id: accountId }, payload: { deployment_package_id: `pkg-${i}` } }),
          (started) => started.deployment_package_job_id
        ))
      const seen = new Map(jobIds.map((id) => [id, [] as Array<string>]))
      yield* eventually(Effect.gen(function*() {
        for (const id of jobIds) {
          const { status } = yield* getJob(client, accountId, id)
          const statuses = seen.get(id)!
          if (statuses.at(-1) !== status) statuses.push(status)
        }
        return Option.liftPredicate(seen, (seen) => [...seen.values()].every((s) => s.at(-1) === "SUCCEEDED"))
      }))
      for (const [id, statuses] of seen) {
        assert.strictEqual(statuses.at(-1), "SUCCEEDED", `${id}: ${statuses.join(" → ")}`)
        const ranks = statuses.map((status) => order.indexOf(status))
        assert.isFalse(ranks.includes(-1), statuses.join(" → "))
        assert.deepStrictEqual(ranks, [...ranks].sort(), `${id}: ${statuses.join(" → ")}`)
      }
    }))

  it.effect("every body field is optional; fields not given read back as null", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const started = yield* caller.client.deploymentPackages.installAsync({
        path: { account_id: caller.accountId },
        payload: { deployment_package_name: "kb-pack" }
      })
      assert.strictEqual(started.account_id, caller.accountId)
      const done = yield* finished(caller.client, caller.accountId, started.deployment_package_job_id)
      assert.strictEqual(done.status, "SUCCEEDED")
      assert.strictEqual(done.deployment_package_id, null)
      assert.strictEqual(done.deployment_package_type, null)
      assert.strictEqual(done.version_constraint, null)

      const empty = yield* installAndWait(caller, {})
      assert.strictEqual(empty.status, "FAILED")
      assert.strictEqual(empty.status_reason, "No package named: give deployment_package_id or deployment_package_name")
      assert.strictEqual(yield* jobCount(caller.accountId), 2)

      // the account's jobs, newest first
      const listed = yield* caller.client.deploymentPackages.listInstallJobs({
        path: { account_id: caller.accountId },
        urlParams: {}
      })
      assert.strictEqual(listed.total_item_count, 2)
      assert.sameMembers(listed.items.map((job) => job.id), [started.deployment_package_job_id, empty.id])
      const other = yield* provision()
      const foreign = yield* Effect.flip(other.client.deploymentPackages.listInstallJobs({
        path: { account_id: caller.accountId },
        urlParams: {}
      }))
      assert.strictEqual(foreign._tag, "Forbidden")
      const badLimit = yield* request("GET", `${installPath(caller.accountId)}?limit=0`, { key: caller.key })
      assert.deepStrictEqual(issues(badLimit), [{ loc: ["query", "limit"], type: "range_error" }])
    }))

  it.effect("a constraint that parses ends SUCCEEDED; one that does not ends FAILED with a reason", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const withConstraint = (version_constraint: VersionConstraint) =>
        installAndWait(caller, { deployment_package_id: "pkg", version_constraint })

      const semver = yield* withConstraint({ version_constraint_type: "SEMVER_MIN", minimum_version: "2.0.0-rc.1+b5" })
      assert.strictEqual(semver.status, "SUCCEEDED")
      const notSemver = yield* withConstraint({ version_constraint_type: "SEMVER_MIN", minimum_version: "latest" })
      assert.strictEqual(notSemver.status, "FAILED")
      assert.strictEqual(notSemver.status_reason, "minimum_version \"latest\" is not a semantic version (MAJOR.MINOR.PATCH)")

      const timestamp = yield* withConstraint({
        version_constraint_type: "TIMESTAMP_MIN",
        minimum_timestamp: "2026-01-31T12:00:00Z",
        extra: { kept: true }
      })
      assert.strictEqual(timestamp.status, "SUCCEEDED")
      assert.deepStrictEqual(timestamp.version_constraint, {
        version_constraint_type: "TIMESTAMP_MIN",
        minimum_timestamp: "2026-01-31T12:00:00Z",
        extra: { kept: true }
      })
      const badTimestamp = yield* withConstraint({ version_constraint_type: "TIMESTAMP_MIN", minimum_timestamp: "yesterday" })
      assert.strictEqual(badTimestamp.status, "FAILED")
      assert.strictEqual(badTimestamp.status_reason, "minimum_timestamp must be an ISO 8601 date-time")

      const exact = yield* withConstraint({ version_constraint_type: "EXACT_VERSION", package_version_id: "pv-9" })
      assert.strictEqual(exact.status, "SUCCEEDED")
      assert.strictEqual(exact.status_reason, null)
      const badExact = yield* withConstraint({ version_constraint_type: "EXACT_VERSION" })
      assert.strictEqual(badExact.status, "FAILED")
      assert.strictEqual(badExact.status_reason, "package_version_id must be a non-empty string")
    }))

  it.effect("no body at all (with or without content-type) is {}: a job is created, read back with nulls", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const bare = yield* request("POST", installPath(caller.accountId), { key: caller.key })
      assert.strictEqual(bare.status, 200)
      assert.strictEqual(bare.body.account_id, caller.accountId)
      assert.match(bare.body.deployment_package_job_id, uuid)
      const typed = yield* request("POST", installPath(caller.accountId), {
        key: caller.key,
        headers: { "content-type": "application/json" }
      })
      assert.strictEqual(typed.status, 200)
      const blank = yield* request("POST", installPath(caller.accountId), { key: caller.key, body: " \n" })
      assert.strictEqual(blank.status, 200)
      for (const started of [bare, typed, blank]) {
        const job = yield* finished(caller.client, caller.accountId, started.body.deployment_package_job_id)
        assert.strictEqual(job.deployment_package_id, null)
        assert.strictEqual(job.deployment_package_name, null)
        assert.strictEqual(job.version_constraint, null)
        assert.strictEqual(job.status, "FAILED")
      }
      assert.strictEqual(yield* jobCount(caller.accountId), 3)

      // still 401 → 403 without a body
      const anonymous = yield* request("POST", installPath(caller.accountId))
      assert.strictEqual(anonymous.status, 401)
      const other = yield* provision()
      const foreign = yield* request("POST", installPath(other.accountId), { key: caller.key })
      assert.strictEqual(foreign.status, 403)
      assert.strictEqual(yield* jobCount(other.accountId), 0)
    }))

  it.effect("validation: bad body fields give 422 with exact loc, before the account check; nothing is written", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const wrong = yield* request("POST", installPath(caller.accountId), {
        key: caller.key,
        body: {
          deployment_package_id: 5,
          deployment_package_name: "",
          deployment_package_type: "ZIP",
          version_constraint: { version_constraint_type: "SEMVER_MIN", minimum_version: "" }
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "deployment_package_id"], type: "string_type" },
        { loc: ["body", "deployment_package_name"], type: "string_too_short" },
        { loc: ["body", "deployment_package_type"], type: "literal_error" },
        { loc: ["body", "version_constraint", "minimum_version"], type: "string_too_short" }
      ])

      const constraint = yield* request("POST", installPath(caller.accountId), {
        key: caller.key,
        body: { version_constraint: { version_constraint_type: "LATEST" } }
      })
      assert.deepStrictEqual(issues(constraint), [
        { loc: ["body", "version_constraint", "version_constraint_type"], type: "literal_error" }
      ])
      const noMinimum = yield* request("POST", installPath(caller.accountId), {
        key: caller.key,
        body: { version_constraint: { version_constraint_type: "SEMVER_MIN" } }
      })
      assert.deepStrictEqual(issues(noMinimum), [
        { loc: ["body", "version_constraint", "minimum_version"], type: "missing" }
      ])
      const untagged = yield* request("POST", installPath(caller.accountId), {
        key: caller.key,
        body: { version_constraint: { minimum_version: "1.0.0" } }
      })
      assert.deepStrictEqual(issues(untagged), [
        { loc: ["body", "version_constraint", "version_constraint_type"], type: "missing" }
      ])
      const malformed = yield* request("POST", installPath(caller.accountId), { key: caller.key, body: "{" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])
      // a body that is JSON but not an object is still a 422 (only no body at all is `{}`)
      const notObject = yield* request("POST", installPath(caller.accountId), { key: caller.key, body: "[]" })
      assert.strictEqual(notObject.status, 422)
      assert.deepStrictEqual(issues(notObject), [{ loc: ["body"], type: "dict_type" }])

      // a bad body to another account is still a 422: shape comes before ownership
      const foreignBad = yield* request("POST", installPath(other.accountId), {
        key: caller.key,
        body: { deployment_package_type: "ZIP" }
      })
      assert.strictEqual(foreignBad.status, 422)

      assert.strictEqual(yield* jobCount(caller.accountId), 0)
      assert.strictEqual(yield* jobCount(other.accountId), 0)
    }))

  it.effect("401 without a key or with an unknown one, on both endpoints", () =>
    Effect.gen(function*() {
      const { accountId } = yield* provision()
      const install = yield* request("POST", installPath(accountId), { body: { deployment_package_name: "p" } })
      assert.strictEqual(install.status, 401)
      assert.isString(install.body.detail)
      const read = yield* request("GET", jobPath(accountId, "some-job"), { key: "pk_nope" })
      assert.strictEqual(read.status, 401)
      assert.strictEqual(yield* jobCount(accountId), 0)
    }))

  it.effect("403 for a path account that is not the caller's; 404 for a missing job and another account's job", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const started = yield* alice.client.deploymentPackages.installAsync({
        path: { account_id: alice.accountId },
        payload: { deployment_package_name: "p" }
      })
      const jobId = started.deployment_package_job_id

      const forbidden = yield* Effect.flip(bob.client.deploymentPackages.installAsync({
        path: { account_id: alice.accountId },
        payload: { deployment_package_name: "p" }
      }))
      assert.instanceOf(forbidden, Forbidden)
      assert.isString(forbidden.detail)
      const forbiddenRead = yield* Effect.flip(
        bob.client.deploymentPackages.getInstallJob({
          path: { account_id: alice.accountId, deployment_package_job_id: jobId }
        })
      )
      assert.strictEqual(forbiddenRead._tag, "Forbidden")

      const foreign = yield* request("GET", jobPath(bob.accountId, jobId), { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Deployment package install job ${jobId} not found` })
      const missing = yield* Effect.flip(
        alice.client.deploymentPackages.getInstallJob({
          path: { account_id: alice.accountId, deployment_package_job_id: "no-such-job" }
        })
      )
      assert.strictEqual(missing._tag, "NotFound")

      assert.strictEqual(yield* jobCount(alice.accountId), 1)
      assert.strictEqual(yield* jobCount(bob.accountId), 0)
    }))

  it.effect("when an engine starts it installs the jobs a previous process left unfinished", () =>
    Effect.gen(function*() {
      const { accountId, identityId } = yield* provision()
      const repo = yield* PackageJobsRepo
      const job = new DeploymentPackageInstallJob({
        id: randomUUID(),
        account_id: accountId,
        deployment_package_id: "pkg",
        deployment_package_name: null,
        deployment_package_type: "MODEL",
        version_constraint: null,
        status: "RUNNING",
        status_reason: null,
        created_at: "2026-01-01T00:00:00.000Z",
        updated_at: "2026-01-01T00:00:00.000Z",
        created_by_user_id: identityId,
        created_by_identity_type: "user"
      })
      yield* repo.insert(job)

      const status = yield* Effect.scoped(
        Effect.gen(function*() {
          // a second engine on the same database, as a restarted process has
          yield* Layer.build(LifecyclesLive.pipe(Layer.provide(Simulation.layer)))
          const found = yield* eventually(
            Effect.map(repo.findById(job.id, [accountId]), Option.filter((found) => found.status === "SUCCEEDED"))
          )
          return Option.match(found, { onNone: () => "unfinished", onSome: (found) => found.status })
        })
      )
      assert.strictEqual(status, "SUCCEEDED")
    }).pipe(Effect.provide(PackageJobsRepo.Default)))
})

describe("install checks", () => {
  it("semantic versions follow semver 2.0.0", () => {
    const check = (minimum_version: string) =>
      constraintProblem({ version_constraint_type: "SEMVER_MIN", minimum_version } as any)
    for (const ok of ["0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha.1", "1.0.0+build.7"]) {
      assert.isUndefined(check(ok), ok)
    }
    for (const bad of ["1", "1.2", "v1.2.3", "01.2.3", "1.2.3.4", " 1.2.3", "1.2.3-"]) {
      assert.isString(check(bad), bad)
    }
  })

  it("timestamps are ISO 8601 date-times; exact versions are non-empty strings", () => {
    assert.isUndefined(constraintProblem({ version_constraint_type: "TIMESTAMP_MIN", minimum_timestamp: "2026-11-22T10:00:00.000Z" }))
    assert.isUndefined(constraintProblem({ version_constraint_type: "TIMESTAMP_MIN", minimum_timestamp: "2026-11-22T10:00+02:00" }))
    assert.isString(constraintProblem({ version_constraint_type: "TIMESTAMP_MIN", minimum_timestamp: "2026-11-22" }))
    assert.isString(constraintProblem({ version_constraint_type: "TIMESTAMP_MIN", minimum_timestamp: 1767225600 }))
    assert.isUndefined(constraintProblem({ version_constraint_type: "EXACT_VERSION", package_version_id: "v" }))
    assert.isString(constraintProblem({ version_constraint_type: "EXACT_VERSION", package_version_id: "" }))
    assert.isString(constraintProblem({ version_constraint_type: "EXACT_VERSION", package_version_id: 3 }))
  })

  it("a job must name a package", () => {
    const job = (fields: Partial<DeploymentPackageInstallJob>) =>
      new DeploymentPackageInstallJob({
        id: "j",
        account_id: "a",
        deployment_package_id: null,
        deployment_package_name: null,
        deployment_package_type: null,
        version_constraint: null,
        status: "PENDING",
        status_reason: null,
        created_at: "2026-01-01T00:00:00.000Z",
        updated_at: "2026-01-01T00:00:00.000Z",
        created_by_user_id: "u",
        created_by_identity_type: "user",
        ...fields
      })
    assert.isString(installProblem(job({})))
    assert.isUndefined(installProblem(job({ deployment_package_id: "p" })))
    assert.isUndefined(installProblem(job({ deployment_package_name: "n" })))
  })
})
