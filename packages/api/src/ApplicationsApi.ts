import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class ApplicationsApi extends HttpApiGroup.make("applications")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Applications")
{}
