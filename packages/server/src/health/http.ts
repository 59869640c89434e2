import { HttpApiBuilder } from "@effect/platform"
import { Health, PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"

export const HealthLive = HttpApiBuilder.group(PlatformApi, "health", (handlers) =>
  handlers.handle("health", () => Effect.succeed(new Health({ status: "ok" }))))
