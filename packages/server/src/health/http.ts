import { Health, PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"
import { group } from "../fast/implementations.js"

/** Made once: constructing a Schema class validates its fields, which `/health` would pay per request. */
const ok = Effect.succeed(new Health({ status: "ok" }))

export const HealthLive = group(PlatformApi, "health", (handlers) => handlers.handle("health", () => ok))
