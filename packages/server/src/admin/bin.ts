/**
 * `platform-kit` (the admin CLI) as a program: parses the arguments, opens the database of
 * `DATABASE_URL` (migrating it if new), runs the command, closes the database. Exit codes: 0 done,
 * 1 the command could not be done (unknown account, key or identity), 2 bad command line.
 */
import { Cause, Effect, Either, Exit, Layer, Logger, LogLevel } from "effect"
import { Accounts } from "../auth/Accounts.js"
import { Ids } from "../platform/Ids.js"
import { DatabaseLive } from "../database.js"
import { parse, run, usage } from "./cli.js"

const AdminLive = Accounts.Default.pipe(Layer.provide(Ids.Live), Layer.provide(DatabaseLive))

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const command = parse(argv)
  if (Either.isLeft(command)) {
    process.stderr.write(`platform-kit: ${command.left.message}\n\n${usage}\n`)
    return 2
  }
  const exit = await Effect.runPromiseExit(
    run(command.right).pipe(Effect.provide(AdminLive), Logger.withMinimumLogLevel(LogLevel.Warning))
  )
  if (Exit.isSuccess(exit)) {
    for (const line of exit.value.notes) process.stderr.write(`${line}\n`)
    for (const line of exit.value.out) process.stdout.write(`${line}\n`)
    return 0
  }
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  process.stderr.write(`platform-kit: ${failure?.message ?? Cause.pretty(exit.cause)}\n`)
  return 1
}

process.exitCode = await main(process.argv.slice(2))
