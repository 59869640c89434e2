/**
 * The standalone server's program (docs/operations.md), loaded by `bin.ts`: the log as configured, and a start that
 * fails on a mistake an operator can fix (a port in use, a database out of reach, a bad
 * DATABASE_URL or setting) ends with one line on stderr and its exit code, without a stack trace.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { ServerLive } from "./main.js"
import { ExitCode, LoggingLive, redactUrl, startFailure } from "./operations.js"

NodeRuntime.runMain(Layer.launch(ServerLive).pipe(Effect.provide(LoggingLive)), {
  disablePrettyLogger: true,
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
    // what is still queued for stdout (the stop line, the last access-log lines) goes out first
    const end = (code: number) => process.stdout.write("", () => onExit(code))
    if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return end(0)
    const known = startFailure(exit.cause)
    process.stderr.write(
      Option.isSome(known)
        ? `platform-kit: ${known.value.line}\n`
        : `platform-kit: ${redactUrl(Cause.pretty(exit.cause, { renderErrorCause: true }))}\n`
    )
    end(Option.isSome(known) ? known.value.exitCode : ExitCode.Failure)
  }
})
