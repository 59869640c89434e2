import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  DeploymentPackageInstallJob,
  DeploymentPackageInstallStarted,
  Id,
  InstallDeploymentPackage,
  NotFound,
  V4Page,
  V4PageQuery
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class DeploymentPackagesApi extends HttpApiGroup.make("deploymentPackages")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("installAsync", "/v4/deployment-packages/:account_id/install_async")
      .setPath(Schema.Struct({ account_id: Id }))
      .setPayload(InstallDeploymentPackage)
      .addSuccess(DeploymentPackageInstallStarted)
  )
  .add(
    HttpApiEndpoint.get(
      "getInstallJob",
      "/v4/deployment-packages/:account_id/install_async/:deployment_package_job_id"
    )
      .setPath(Schema.Struct({ account_id: Id, deployment_package_job_id: Id }))
      .addSuccess(DeploymentPackageInstallJob)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listInstallJobs", "/v4/deployment-packages/:account_id/install_async")
      .setPath(Schema.Struct({ account_id: Id }))
      .setUrlParams(Schema.Struct({ page: V4PageQuery.page, limit: V4PageQuery.limit }))
      .addSuccess(V4Page(DeploymentPackageInstallJob))
  )
  .annotate(OpenApi.Title, "Deployment packages")
{}
