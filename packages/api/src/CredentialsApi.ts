import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class CredentialsApi extends HttpApiGroup.make("credentials")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Credentials")
{}
