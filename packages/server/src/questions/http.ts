import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const QuestionsLive = HttpApiBuilder.group(PlatformApi, "questions", (handlers) => Effect.succeed(handlers))
