import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  DeploymentPackageInstallJob,
  DeploymentPackageInstallStarted,
  Id,
  InstallDeploymentPackage,
  NotFound
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
  .annotate(OpenApi.Title, "Deployment packages")
{}
