/**
 * The control plane for teams that test against the kit (docs/control-plane.md): progression,
 * fault rules, parked steps, the engine's health, and a reset of every account's data. Every endpoint needs the admin key in
 * `x-admin-key` (`PLATFORM_ADMIN_KEY`); no account key opens it, and without an admin key
 * configured the control plane is off (404).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import {
  AdvancedSteps,
  AdvanceSteps,
  Controls,
  EngineHealth,
  NotFound,
  ParkedStep,
  ResetResult,
  Unauthorized,
  UpdateControls
} from "@platform-kit/schema"
import { Schema } from "effect"

/** The admin key security: `x-admin-key`; a wrong key is a 401, a control plane not configured a 404. */
export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("AdminAuthentication", {
  failure: Schema.Union(Unauthorized, NotFound),
  security: {
    adminKey: HttpApiSecurity.apiKey({ in: "header", key: "x-admin-key" })
  }
}) {}

export class AdminApi extends HttpApiGroup.make("admin")
  .middleware(AdminAuthentication)
  .add(
    HttpApiEndpoint.get("getControls", "/admin/controls")
      .addSuccess(Controls)
      .annotate(OpenApi.Summary, "Get the simulation controls")
      .annotate(
        OpenApi.Description,
        "Answers the controls in force: `progression`, `step_seconds`, `lifecycle_faults` and `route_faults`."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateControls", "/admin/controls")
      .setPayload(UpdateControls)
      .addSuccess(Controls)
      .annotate(OpenApi.Summary, "Update the simulation controls")
      .annotate(
        OpenApi.Description,
        "Changes the controls given (a fault list replaces the old one) and answers them as changed; leaving `manual` progression advances every parked step."
      )
  )
  .add(
    HttpApiEndpoint.get("listParkedSteps", "/admin/parked-steps")
      .addSuccess(Schema.Array(ParkedStep))
      .annotate(OpenApi.Summary, "List parked steps")
      .annotate(OpenApi.Description, "Answers the simulated steps parked by `manual` progression, oldest first.")
  )
  .add(
    HttpApiEndpoint.post("advanceParkedSteps", "/admin/parked-steps/advance")
      .setPayload(AdvanceSteps)
      .addSuccess(AdvancedSteps)
      .annotate(OpenApi.Summary, "Advance parked steps")
      .annotate(
        OpenApi.Description,
        "Advances the parked steps `lifecycle` and `id` select (every one when the body names none) and answers them."
      )
  )
  .add(
    HttpApiEndpoint.get("getEngineHealth", "/admin/engine")
      .addSuccess(EngineHealth)
      .annotate(OpenApi.Summary, "Get the workflow engine's health")
      .annotate(
        OpenApi.Description,
        "Answers the engine's `status` (`loading`, `running`, `failed`) and its counts of running, parked and failed workflow executions."
      )
  )
  .add(
    HttpApiEndpoint.post("reset", "/admin/reset")
      .addSuccess(ResetResult)
      .annotate(OpenApi.Summary, "Reset every account's data")
      .annotate(
        OpenApi.Description,
        "Deletes every account's data in one transaction and answers the tables emptied and rows deleted; the controls and the configured API key stay."
      )
  )
  .annotate(OpenApi.Title, "Admin")
  .annotate(OpenApi.Description, "The control plane for tests: the admin key (PLATFORM_ADMIN_KEY) in x-admin-key; off unless configured.")
{}
