import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const AgentRuntimeLive = HttpApiBuilder.group(PlatformApi, "agentRuntime", (handlers) => Effect.succeed(handlers))
