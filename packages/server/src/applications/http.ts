import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const ApplicationsLive = HttpApiBuilder.group(PlatformApi, "applications", (handlers) => Effect.succeed(handlers))
