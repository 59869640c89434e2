/**
 * Example 2: the standalone server — the same Layer `npm start` runs. Configure it with the
 * environment (DATABASE_URL, PORT, HOST, PLATFORM_API_KEY, PLATFORM_ACCOUNT_ID).
 *
 *   PORT=8081 DATABASE_URL=sqlite:./data/example.db npx tsx examples/server.ts
 */
import { NodeRuntime } from "@effect/platform-node"
import { LoggingLive, ServerLive } from "@platform-kit/server"
import { Effect, Layer } from "effect"

// the log as `npm start` writes it: PLATFORM_LOG_FORMAT, else pretty on a terminal and JSON lines
// otherwise (docs/operations.md "The log"); runMain's own pretty logger would write text everywhere
NodeRuntime.runMain(Layer.launch(ServerLive).pipe(Effect.provide(LoggingLive)), { disablePrettyLogger: true })
