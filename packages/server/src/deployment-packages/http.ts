import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { DeploymentPackageInstallJob, DeploymentPackageInstallStarted, pageOf } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { createdBy, requireAccount } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { PackageInstaller } from "./PackageInstaller.js"
import { PackageJobsRepo } from "./PackageJobsRepo.js"

export const DeploymentPackagesLive = HttpApiBuilder.group(PlatformApi, "deploymentPackages", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* PackageJobsRepo
    const installer = yield* PackageInstaller
    return handlers
      .handle("installAsync", ({ path, payload }) =>
        Effect.gen(function*() {
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
            })
          )
          yield* installer.submit({ id, account_id })
          return new DeploymentPackageInstallStarted({ deployment_package_job_id: id, account_id })
        }))
      .handle("getInstallJob", ({ path }) =>
        Effect.flatMap(requireAccount(path.account_id), (accountId) =>
          repo.get(path.deployment_package_job_id, [accountId])))
      .handle("listInstallJobs", ({ path, urlParams }) =>
        Effect.flatMap(requireAccount(path.account_id), (accountId) =>
          repo.page({ accountIds: [accountId], ...pageOf(urlParams) })))
  })
).pipe(Layer.provide(PackageInstaller.Live.pipe(Layer.provideMerge(PackageJobsRepo.Default))))
