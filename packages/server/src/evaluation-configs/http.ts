import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const EvaluationConfigsLive = HttpApiBuilder.group(PlatformApi, "evaluationConfigs", (handlers) => Effect.succeed(handlers))
