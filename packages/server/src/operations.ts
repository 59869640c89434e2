/**
 * What an operator of the standalone server sees (docs/operations.md): the log's format and level,
 * the start line (where the server listens, where its documentation is), the stop line, and a
 * mistake in the configuration or the environment answered with one line and an exit code
 * instead of a stack trace.
 */
import { HttpServer } from "@effect/platform"
import { Cause, ConfigError, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { LogFormat, LogLevelName } from "./config.js"

const levels = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
} as const

/** The log as `PLATFORM_LOG_FORMAT` and `PLATFORM_LOG_LEVEL` say. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const format = Option.getOrElse(yield* LogFormat, () => (process.stdout.isTTY ? "pretty" as const : "json" as const))
    const level = yield* LogLevelName
    const logger = format === "json" ? Logger.json : format === "logfmt" ? Logger.logFmt : Logger.pretty
    return Layer.merge(logger, Logger.minimumLogLevel(levels[level]))
  })
)

/** The start line: the address, and where the API's documentation is. */
export const StartLine = Layer.effectDiscard(
  HttpServer.addressFormattedWith((address) =>
    Effect.logInfo(`Listening on ${address}; API documentation at ${address}/docs (OpenAPI: ${address}/openapi.json)`)
  )
)

/** `layer` with the start line once it listens (in place of `HttpServer.withLogAddress`). */
export const withStartLine = <A, E, R>(layer: Layer.Layer<A, E, R>) => StartLine.pipe(Layer.provideMerge(layer))

/** The stop line, written last (after the requests in flight and the database are done). */
export const StopLine = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.logInfo("Stopped: the requests in flight answered, the database closed")))

/** A failure to start, as an operator reads it: one line, and the exit code it ends with. */
export interface StartFailure {
  readonly line: string
  readonly exitCode: number
}

/** Exit codes (docs/operations.md): configuration 2, address 3, database 4, anything else 1. */
export const ExitCode = { Failure: 1, Configuration: 2, Address: 3, Database: 4 } as const

const errorChain = (error: unknown): ReadonlyArray<any> => {
  const chain: Array<any> = []
  let current: any = error
  while (current !== undefined && current !== null && chain.length < 8) {
    chain.push(current)
    current = current.cause
  }
  return chain
}

/** `postgres://user:secret@host/db` without its password. */
export const redactUrl = (text: string) => text.replace(/(\w+:\/\/[^:/@\s]*):[^@/\s]*@/g, "$1:***@")

/** The failure of a start, when it is one an operator can fix; none for anything else. */
export const startFailure = (cause: Cause.Cause<unknown>): Option.Option<StartFailure> => {
  const failure = Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause))
  if (Option.isNone(failure)) return Option.none()
  const chain = errorChain(failure.value)
  const top = chain[0]
  const code = chain.map((error) => error?.code).find((code) => typeof code === "string")
  if (ConfigError.isConfigError(top)) {
    return Option.some({ line: `configuration: ${String(top).replace(/\s+/g, " ")}`, exitCode: ExitCode.Configuration })
  }
  if (top?._tag === "ServeError" && (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL")) {
    const what = code === "EADDRINUSE" ? "is in use" : code === "EACCES" ? "is not allowed to this user" : "is not an address of this machine"
    const address = chain.map((error) => error?.address).find((address) => typeof address === "string")
    const port = chain.map((error) => error?.port).find((port) => typeof port === "number")
    return Option.some({
      line: `cannot listen on ${address ?? "HOST"}:${port ?? "PORT"}: the address ${what} (set PORT or HOST)`,
      exitCode: ExitCode.Address
    })
  }
  if (top?._tag === "SqlError") {
    const reason = chain.at(-1)?.message ?? String(top)
    return Option.some({
      line: `cannot open the database of DATABASE_URL: ${redactUrl(String(reason)).replace(/\s+/g, " ")}`,
      exitCode: ExitCode.Database
    })
  }
  if (top instanceof Error && /^DATABASE_URL /.test(top.message)) {
    return Option.some({ line: `configuration: ${top.message}`, exitCode: ExitCode.Configuration })
  }
  return Option.none()
}
