import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const ModelsLive = HttpApiBuilder.group(PlatformApi, "models", (handlers) => Effect.succeed(handlers))
