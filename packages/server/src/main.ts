/**
 * The standalone server as a Layer: Node HTTP on HOST:PORT, the database of DATABASE_URL. The
 * composition that puts the fast path in (fast/README.md): the lean server and the server's way of
 * opening SQLite.
 */
import { HttpMiddleware } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Accounts } from "./auth/Accounts.js"
import { bootstrap } from "./bootstrap.js"
import { HelperThreadsNice, Host, Port } from "./config.js"
import { LeanHttpLive } from "./fast/server.js"
import { ServerDatabaseLive } from "./fast/database.js"
import { niceHelperThreads } from "./platform/helperThreads.js"
import { Ids } from "./platform/Ids.js"
import { ConsoleLive } from "./console/http.js"
import { StopLine } from "./operations.js"
import { TraceRecordingLive } from "./spans/tracer.js"

export { LeanHttpLive } from "./fast/server.js"
export { serverDatabaseLayer, ServerDatabaseLive } from "./fast/database.js"

/** Node HTTP on HOST:PORT through the lean server (fast/server.ts), with the console at `/console` (console/http.ts). */
const NodeServerLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const port = yield* Port
    const host = yield* Host
    return LeanHttpLive({ port, host }).pipe(Layer.provide(ConsoleLive))
  })
)

/** The helper threads the process has at start at the configured nice value (platform/helperThreads.ts). */
const HelperThreadsNiced = Layer.effectDiscard(
  Effect.flatMap(HelperThreadsNice, (nice) =>
    Effect.sync(() => niceHelperThreads(nice)).pipe(
      Effect.flatMap((niced) => Effect.logDebug(`${niced} helper threads at nice ${nice}`))
    ))
)

const BootstrapLive = Layer.effectDiscard(bootstrap).pipe(Layer.provide(Accounts.Default))

/**
 * The standalone server exports no traces (it installs no tracer), so it opens no spans either:
 * not the request span of `HttpMiddleware.tracer`, not the span `@effect/sql` opens per statement.
 * They cost work on every request for spans nobody reads (docs/benchmarks.md "The per-request
 * floor"). An application that wants traces embeds `HttpLive`/`AppLive` with its tracer instead.
 * The kit's own spans (spans/tracer.ts) turn tracing on for themselves alone.
 */
const WithoutTracing = Layer.setTracerEnabled(false)

/**
 * The same application as `HttpLive` (`HttpApiBuilder.serve` of `AppLive`), on Node through the lean
 * server: what the lean server does not take, the builder's application serves.
 */
export const ServerLive = NodeServerLive.pipe(
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(BootstrapLive),
  Layer.provide(Ids.Live),
  // the kit's own spans: written after the server has stopped, before the database closes
  Layer.provide(TraceRecordingLive),
  Layer.provide(ServerDatabaseLive),
  Layer.provide(WithoutTracing),
  Layer.provide(HelperThreadsNiced),
  // built first, so its line is written last: after the requests in flight and the database
  Layer.provide(StopLine)
)
