import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export class Health extends Schema.Class<Health>("Health")({ status: Schema.Literal("ok") }) {}

/** `GET /health`: no key needed. */
export class HealthApi extends HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("health", "/health").addSuccess(Health))
  .annotate(OpenApi.Title, "Health")
{}
