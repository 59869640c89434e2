import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  DeploymentPackageInstallJob,
  DeploymentPackageInstallStarted,
  Id,
  InstallDeploymentPackage,
  InstallDeploymentPackageResponse,
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
      .annotate(OpenApi.Summary, "Install a deployment package")
      .annotate(
        OpenApi.Description,
        "Starts an install job in the path's account (403 unless it is the caller's) and answers its id; every body field is optional, and no body is `{}`. The job then runs in the background: `PENDING`, `RUNNING`, then `SUCCEEDED` or `FAILED`."
      )
  )
  .add(
    HttpApiEndpoint.post("install", "/v4/deployment-packages/:account_id/install")
      .setPath(Schema.Struct({ account_id: Id }))
      .setPayload(InstallDeploymentPackage)
      .addSuccess(InstallDeploymentPackageResponse)
      .annotate(OpenApi.Summary, "Install a deployment package and wait for the outcome")
      .annotate(
        OpenApi.Description,
        "The synchronous twin of `install_async`: starts the same install job and answers when it has ended, with the installation (`status` `INSTALLED` or `FAILED`, the reason in `install_log`). A job still running after 60 seconds is answered `IN_PROGRESS`; its id is the install job's, readable under `install_async`."
      )
  )
  .add(
    HttpApiEndpoint.get(
      "getInstallJob",
      "/v4/deployment-packages/:account_id/install_async/:deployment_package_job_id"
    )
      .setPath(Schema.Struct({ account_id: Id, deployment_package_job_id: Id }))
      .addSuccess(DeploymentPackageInstallJob)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a deployment package install job")
      .annotate(
        OpenApi.Description,
        "Answers the install job with its `status` and `status_reason`; 403 unless the path's account is the caller's, 404 for a job not in it."
      )
  )
  .add(
    HttpApiEndpoint.get("listInstallJobs", "/v4/deployment-packages/:account_id/install_async")
      .setPath(Schema.Struct({ account_id: Id }))
      .setUrlParams(Schema.Struct({ page: V4PageQuery.page, limit: V4PageQuery.limit }))
      .addSuccess(V4Page(DeploymentPackageInstallJob))
      .annotate(OpenApi.Summary, "List deployment package install jobs")
      .annotate(
        OpenApi.Description,
        "Lists the install jobs of the path's account (403 unless it is the caller's), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .annotate(OpenApi.Title, "Deployment packages")
  .annotate(OpenApi.Description, "Asynchronous installs of deployment packages into an account, and their jobs.")
{}
