#!/usr/bin/env node
/**
 * The standalone server's program (docs/operations.md): the log as configured, and a start that
 * fails on a mistake an operator can fix (a port in use, a database out of reach, a bad
 * DATABASE_URL or setting) ends with one line on stderr and its exit code, without a stack trace.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { ServerLive } from "./main.js"
import { ExitCode, LoggingLive, startFailure } from "./operations.js"

NodeRuntime.runMain(Layer.launch(ServerLive).pipe(Effect.provide(LoggingLive)), {
  disablePrettyLogger: true,
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return onExit(0)
    const known = startFailure(exit.cause)
    process.stderr.write(
      Option.isSome(known) ? `platform-kit: ${known.value.line}\n` : `platform-kit: ${Cause.pretty(exit.cause)}\n`
    )
    onExit(Option.isSome(known) ? known.value.exitCode : ExitCode.Failure)
  }
})
