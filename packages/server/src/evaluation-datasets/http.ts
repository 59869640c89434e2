import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const EvaluationDatasetsLive = HttpApiBuilder.group(PlatformApi, "evaluationDatasets", (handlers) => Effect.succeed(handlers))
