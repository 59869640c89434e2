import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const DeploymentPackagesLive = HttpApiBuilder.group(PlatformApi, "deploymentPackages", (handlers) => Effect.succeed(handlers))
