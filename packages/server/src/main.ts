/** The standalone server as a Layer: Node HTTP on HOST:PORT, the database of DATABASE_URL. */
import { HttpMiddleware } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { Accounts } from "./auth/Accounts.js"
import { bootstrap } from "./bootstrap.js"
import { Host, Port } from "./config.js"
import { HttpLive } from "./http/server.js"
import { Ids } from "./platform/Ids.js"
import { DatabaseLive } from "./sql/database.js"

const NodeServerLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const port = yield* Port
    const host = yield* Host
    return NodeHttpServer.layer(createServer, { port, host })
  })
)

const BootstrapLive = Layer.effectDiscard(bootstrap).pipe(Layer.provide(Accounts.Default))

/**
 * The standalone server exports no traces (it installs no tracer), so it opens no spans either: not
 * the request span of `HttpMiddleware.tracer`, not the span `@effect/sql` opens per statement. They
 * cost work on every request for spans nobody reads (docs/benchmarks.md). An application that wants
 * traces embeds `HttpLive`/`AppLive` with its tracer instead.
 */
const WithoutTracing = Layer.setTracerEnabled(false)

export const ServerLive = HttpLive.pipe(
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(BootstrapLive),
  Layer.provide(NodeServerLive),
  Layer.provide(Ids.Live),
  Layer.provide(DatabaseLive),
  Layer.provide(WithoutTracing)
)
