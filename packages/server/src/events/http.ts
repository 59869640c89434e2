import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const EventsLive = HttpApiBuilder.group(PlatformApi, "events", (handlers) => Effect.succeed(handlers))
