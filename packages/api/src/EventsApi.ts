import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class EventsApi extends HttpApiGroup.make("events")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Agent task events")
{}
