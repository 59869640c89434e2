/**
 * Example 2: the standalone server — the same Layer `npm start` runs. Configure it with the
 * environment (DATABASE_URL, PORT, HOST, PLATFORM_API_KEY, PLATFORM_ACCOUNT_ID).
 *
 *   PORT=8081 DATABASE_URL=sqlite:./data/example.db npx tsx examples/server.ts
 */
import { NodeRuntime } from "@effect/platform-node"
import { ServerLive } from "@platform-kit/server"
import { Layer } from "effect"

NodeRuntime.runMain(Layer.launch(ServerLive))
