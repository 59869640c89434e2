/**
 * What an operator of the standalone server sees (docs/operations.md): the log's format and level,
 * the start line (where the server listens, where its documentation is), the stop line, and a
 * mistake in the configuration or the environment answered with one line and an exit code
 * instead of a stack trace.
 */
import { HttpServer } from "@effect/platform"
import { Cause, ConfigError, Effect, Exit, Layer, Logger, LogLevel, Option } from "effect"
import { AccessLog, LogFormat, LogLevelName } from "./config.js"

const levels = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
} as const

/** `PLATFORM_LOG_FORMAT`, else `pretty` on a terminal and `json` otherwise. */
const logFormat = Effect.map(LogFormat, Option.getOrElse(() => (process.stdout.isTTY ? "pretty" as const : "json" as const)))

/** The access log's format; none when `PLATFORM_ACCESS_LOG=off` or the level is above `info`. */
export const accessLogFormat = Effect.gen(function*() {
  if ((yield* AccessLog) === "off") return undefined
  const level = yield* LogLevelName
  return level === "warning" || level === "error" || level === "none" ? undefined : yield* logFormat
})

/** The log as `PLATFORM_LOG_FORMAT` and `PLATFORM_LOG_LEVEL` say. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const format = yield* logFormat
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
export const StopLine = Layer.scopedDiscard(
  Effect.addFinalizer((exit) =>
    Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
      ? Effect.logInfo("Stopped: the requests in flight answered, the database closed")
      : Effect.void
  )
)

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

/** The most telling message of an error chain: its last non-empty one (an `AggregateError`'s parts). */
const reasonOf = (chain: ReadonlyArray<any>): string => {
  for (const error of [...chain].reverse()) {
    if (Array.isArray(error?.errors) && error.errors.length > 0) {
      return error.errors.map((part: any) => part?.message || part?.code || String(part)).join("; ")
    }
    if (typeof error?.message === "string" && error.message.length > 0) return error.message
  }
  return String(chain[0])
}

/** Codes that say the database could not be reached or opened (rather than that it failed once open). */
const unreachable = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNRESET",
  "28P01", // PostgreSQL: password authentication failed
  "28000", // PostgreSQL: no such role / not allowed
  "3D000", // PostgreSQL: no such database
  "SQLITE_CANTOPEN",
  "SQLITE_NOTADB",
  "ENOENT",
  "EACCES",
  "ENOTDIR",
  "EEXIST",
  "EISDIR",
  "EROFS"
])

/** The failure of a start, when it is one an operator can fix; none for anything else. */
export const startFailure = (cause: Cause.Cause<unknown>): Option.Option<StartFailure> => {
  const failure = Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause))
  if (Option.isNone(failure)) return Option.none()
  const chain = errorChain(failure.value)
  const top = chain[0]
  const codes = chain.flatMap((error) => [error?.code, ...(Array.isArray(error?.errors) ? error.errors.map((part: any) => part?.code) : [])])
    .filter((code): code is string => typeof code === "string")
  const reason = () => redactUrl(reasonOf(chain)).replace(/\s+/g, " ")
  if (ConfigError.isConfigError(top)) {
    return Option.some({ line: `configuration: ${String(top).replace(/\s+/g, " ")}`, exitCode: ExitCode.Configuration })
  }
  if (top?._tag === "ServeError") {
    const code = codes.find((code) => listenProblems[code] !== undefined)
    if (code === undefined) return Option.none()
    const address = chain.map((error) => error?.address ?? error?.hostname).find((address) => typeof address === "string")
    const port = chain.map((error) => error?.port).find((port) => typeof port === "number")
    return Option.some({
      line: `cannot listen on ${address ?? "HOST"}${port === undefined ? "" : `:${port}`}: ${listenProblems[code]} (set PORT or HOST)`,
      exitCode: ExitCode.Address
    })
  }
  if (top instanceof Error && /^DATABASE_URL /.test(top.message)) {
    return Option.some({ line: `configuration: ${top.message}`, exitCode: ExitCode.Configuration })
  }
  const fromDatabase = top?._tag === "SqlError" || chain.some((error) => error?.name === "SqliteError") ||
    chain.some((error) => error?.syscall === "mkdir")
  if (fromDatabase) {
    return Option.some({
      line: codes.some((code) => unreachable.has(code))
        ? `cannot open the database of DATABASE_URL: ${reason()}`
        : `the database of DATABASE_URL failed at start: ${reason()}`,
      exitCode: ExitCode.Database
    })
  }
  return Option.none()
}

const listenProblems: Record<string, string> = {
  EADDRINUSE: "the address is in use",
  EACCES: "the port is not allowed to this user",
  EADDRNOTAVAIL: "the address is not one of this machine's",
  ENOTFOUND: "the host name is unknown",
  EAI_AGAIN: "the host name cannot be resolved now"
}
