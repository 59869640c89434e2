import { HttpApiError, type HttpServerRequest } from "@effect/platform"
import {
  DeploymentPackageInstallJob,
  DeploymentPackageInstallStarted,
  InstallDeploymentPackage,
  InstallDeploymentPackageResponse,
  pageOf,
  PackageInstallation,
  type VersionConstraint
} from "@platform-kit/schema"
import { Clock, Duration, Effect, Layer, Schema } from "effect"
import { createdBy, requireAccount } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { PackageJobsRepo } from "./PackageJobsRepo.js"
import type { ImplementGroup } from "../http/groups.js"

/**
 * The install body: an empty one (no bytes, or only whitespace; whatever the `content-type`) is
 * `{}`. Anything else is read as the builder reads a JSON body (an unparseable or unfit body dies
 * into the shared 422 mapping) and decoded; a shape failure is the builder's decode error, which
 * the validation middleware turns into the contract's 422 items.
 */
const installBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const text = yield* Effect.orDie(request.text)
    const body = text.trim() === "" ? {} : yield* Effect.orDie(request.json)
    return yield* Schema.decodeUnknown(InstallDeploymentPackage)(body).pipe(
      Effect.catchTag("ParseError", HttpApiError.HttpApiDecodeError.refailParseError)
    )
  })

/** How long a synchronous install waits for its job before answering it `IN_PROGRESS`. */
const installWait = Duration.seconds(60)

/** What a constraint asks for, after the package's name: `@>=1.2.0`, `@>=2026-01-01T00:00:00Z`, `@latest`. */
const asked = (constraint: VersionConstraint | null) => {
  if (constraint === null) return "latest"
  switch (constraint.version_constraint_type) {
    case "SEMVER_MIN":
      return `>=${constraint.minimum_version}`
    case "TIMESTAMP_MIN":
      return `>=${String(constraint["minimum_timestamp"])}`
    case "EXACT_VERSION":
      return String(constraint["package_version_id"])
  }
}

/** The installation a synchronous install answers, read off its job (docs/deployment-packages.md). */
const installationOf = (job: DeploymentPackageInstallJob) => {
  const exact = job.version_constraint?.version_constraint_type === "EXACT_VERSION"
  const name = job.deployment_package_name ?? job.deployment_package_id ?? "(no package)"
  return new InstallDeploymentPackageResponse({
    package_installation: new PackageInstallation({
      id: job.id,
      created_at: job.created_at,
      created_by_user_id: job.created_by_user_id,
      organization_id: job.account_id,
      package_version_id: exact ? asked(job.version_constraint) : `${name}@${asked(job.version_constraint)}`,
      account_id: job.account_id,
      install_log: job.status === "FAILED"
        ? job.status_reason ?? "failed"
        : job.status === "SUCCEEDED"
        ? `installed ${name}`
        : `install job ${job.id} is ${job.status}`,
      status: job.status === "SUCCEEDED" ? "INSTALLED" : job.status === "FAILED" ? "FAILED" : "IN_PROGRESS",
      deleted_at: null,
      state: null
    })
  }, true)
}

export const DeploymentPackagesHttp = (group: ImplementGroup) =>
  group("deploymentPackages", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* PackageJobsRepo
    const lifecycles = yield* Lifecycles
    /** Stores the install job in `PENDING` and starts it; answers the job. */
    const startInstall = (accountId: string, payload: InstallDeploymentPackage) =>
      Effect.gen(function*() {
        const account_id = yield* requireAccount(accountId)
        const [id, created_at] = yield* freshIdentity
        const job = yield* repo.insert(
          new DeploymentPackageInstallJob({
            id,
            account_id,
            // packages are not stored by this service: kept as given
            deployment_package_id: payload.deployment_package_id ?? null,
            deployment_package_name: payload.deployment_package_name ?? null,
            deployment_package_type: payload.deployment_package_type ?? null,
            version_constraint: payload.version_constraint ?? null,
            status: "PENDING",
            status_reason: null,
            created_at,
            updated_at: created_at,
            ...(yield* createdBy)
          }, true)
        )
        yield* lifecycles.start({ workflow: "PackageInstall", id, account_id })
        return job
      })
    return handlers
      // raw: the body is optional as a whole ("all fields optional"), so no body at all is `{}`
      .handleRaw("installAsync", ({ path, request }) =>
        Effect.gen(function*() {
          const job = yield* startInstall(path.account_id, yield* installBody(request))
          return new DeploymentPackageInstallStarted({ deployment_package_job_id: job.id, account_id: job.account_id })
        }))
      // the same job, waited for: its row read every 50 ms (on the wall clock) until it has ended
      .handleRaw("install", ({ path, request }) =>
        Effect.gen(function*() {
          const started = yield* startInstall(path.account_id, yield* installBody(request))
          const ended = (job: DeploymentPackageInstallJob) => job.status === "SUCCEEDED" || job.status === "FAILED"
          const read = Effect.orDie(repo.get(started.id, [started.account_id]))
          const untilEnded = (): Effect.Effect<DeploymentPackageInstallJob> =>
            Effect.flatMap(read, (job) => ended(job) ? Effect.succeed(job) : Effect.zipRight(Effect.sleep("50 millis"), Effect.suspend(untilEnded)))
          const job = yield* untilEnded().pipe(
            Effect.timeout(installWait),
            Effect.catchTag("TimeoutException", () => read),
            Effect.withClock(Clock.make())
          )
          return installationOf(job)
        }))
      .handle("getInstallJob", ({ path }) =>
        Effect.flatMap(requireAccount(path.account_id), (accountId) =>
          repo.get(path.deployment_package_job_id, [accountId])))
      .handle("listInstallJobs", ({ path, urlParams }) =>
        Effect.flatMap(requireAccount(path.account_id), (accountId) =>
          repo.page({ accountIds: [accountId], ...pageOf(urlParams) })))
  })
).pipe(Layer.provide(PackageJobsRepo.Default))
