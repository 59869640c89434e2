import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const FineTuningJobsLive = HttpApiBuilder.group(PlatformApi, "fineTuningJobs", (handlers) => Effect.succeed(handlers))
