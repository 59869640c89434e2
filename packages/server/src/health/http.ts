import { Health } from "@platform-kit/api"
import { Effect } from "effect"
import type { ImplementGroup } from "../http/groups.js"

/** Made once: constructing a Schema class validates its fields, which `/health` would pay per request. */
const ok = Effect.succeed(new Health({ status: "ok" }))

export const HealthHttp = (group: ImplementGroup) =>
  group("health", (handlers) => handlers.handle("health", () => ok))
