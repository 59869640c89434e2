import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const KnowledgeBasesLive = HttpApiBuilder.group(PlatformApi, "knowledgeBases", (handlers) => Effect.succeed(handlers))
