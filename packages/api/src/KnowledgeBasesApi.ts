import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class KnowledgeBasesApi extends HttpApiGroup.make("knowledgeBases")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Knowledge bases")
{}
