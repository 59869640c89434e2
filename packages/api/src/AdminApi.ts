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
  .add(HttpApiEndpoint.get("getControls", "/admin/controls").addSuccess(Controls))
  .add(HttpApiEndpoint.patch("updateControls", "/admin/controls").setPayload(UpdateControls).addSuccess(Controls))
  .add(HttpApiEndpoint.get("listParkedSteps", "/admin/parked-steps").addSuccess(Schema.Array(ParkedStep)))
  .add(HttpApiEndpoint.post("advanceParkedSteps", "/admin/parked-steps/advance").setPayload(AdvanceSteps).addSuccess(AdvancedSteps))
  .add(HttpApiEndpoint.get("getEngineHealth", "/admin/engine").addSuccess(EngineHealth))
  .add(HttpApiEndpoint.post("reset", "/admin/reset").addSuccess(ResetResult))
  .annotate(OpenApi.Title, "Admin")
  .annotate(OpenApi.Description, "The control plane for tests: the admin key (PLATFORM_ADMIN_KEY) in x-admin-key; off unless configured.")
{}
