/** The standalone server as a Layer: Node HTTP on HOST:PORT, the database of DATABASE_URL. */
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

export const ServerLive = HttpLive.pipe(
  Layer.provide(BootstrapLive),
  Layer.provide(NodeServerLive),
  Layer.provide(Ids.Live),
  Layer.provide(DatabaseLive)
)
