import { HttpApiError, type HttpServerRequest } from "@effect/platform"
import {
  DeploymentPackageInstallJob,
  DeploymentPackageInstallStarted,
  InstallDeploymentPackage,
  pageOf
} from "@platform-kit/schema"
import { Effect, Layer, Schema } from "effect"
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

export const DeploymentPackagesHttp = (group: ImplementGroup) =>
  group("deploymentPackages", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* PackageJobsRepo
    const lifecycles = yield* Lifecycles
    return handlers
      // raw: the body is optional as a whole ("all fields optional"), so no body at all is `{}`
      .handleRaw("installAsync", ({ path, request }) =>
        Effect.gen(function*() {
          const payload = yield* installBody(request)
          const account_id = yield* requireAccount(path.account_id)
          const [id, created_at] = yield* freshIdentity
          yield* repo.insert(
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
          return new DeploymentPackageInstallStarted({ deployment_package_job_id: id, account_id })
        }))
      .handle("getInstallJob", ({ path }) =>
        Effect.flatMap(requireAccount(path.account_id), (accountId) =>
          repo.get(path.deployment_package_job_id, [accountId])))
      .handle("listInstallJobs", ({ path, urlParams }) =>
        Effect.flatMap(requireAccount(path.account_id), (accountId) =>
          repo.page({ accountIds: [accountId], ...pageOf(urlParams) })))
  })
).pipe(Layer.provide(PackageJobsRepo.Default))
