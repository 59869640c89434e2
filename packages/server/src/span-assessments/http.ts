import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const SpanAssessmentsLive = HttpApiBuilder.group(PlatformApi, "spanAssessments", (handlers) => Effect.succeed(handlers))
