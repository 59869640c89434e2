import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class DeploymentPackagesApi extends HttpApiGroup.make("deploymentPackages")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Deployment packages")
{}
