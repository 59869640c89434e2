import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const EvaluationsLive = HttpApiBuilder.group(PlatformApi, "evaluations", (handlers) => Effect.succeed(handlers))
