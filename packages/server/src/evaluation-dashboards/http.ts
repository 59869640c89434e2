import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const EvaluationDashboardsLive = HttpApiBuilder.group(PlatformApi, "evaluationDashboards", (handlers) => Effect.succeed(handlers))
