import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class ModelsApi extends HttpApiGroup.make("models")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Model deployments and servers")
{}
