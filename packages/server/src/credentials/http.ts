import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const CredentialsLive = HttpApiBuilder.group(PlatformApi, "credentials", (handlers) => Effect.succeed(handlers))
