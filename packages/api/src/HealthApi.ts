import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export class Health extends Schema.Class<Health>("Health")({ status: Schema.Literal("ok") }) {}

/** `GET /health`: no key needed. */
export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Check that the server is up")
      .annotate(OpenApi.Description, "Answers `{\"status\": \"ok\"}` while the server runs; no API key is needed.")
  )
  .annotate(OpenApi.Title, "Health")
  .annotate(OpenApi.Description, "A liveness check of the server, open without a key.")
{}
