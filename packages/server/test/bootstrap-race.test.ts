/**
 * Several instances starting at once on one database run their first-start bootstrap at the same
 * moment. It takes the bootstrap lock first (`transactionLock`), so they run one after the other:
 * one first-start account and key however many start, and a configured key registered once
 * without failing any start. Concurrent bootstraps stand in for the instances (under
 * `npm run test:pg` each runs on a pooled connection of its own; the real processes are in
 * test/processes/multi-instance.pg.ts).
 */
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { bootstrap } from "../src/bootstrap.js"
import { Ids } from "../src/platform/Ids.js"
import { DatabaseTest } from "../src/testDatabase.js"

const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

const count = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql(table)}`, (rows) => Number(rows[0]!.n)))

/** What `bootstrap` prints, collected instead of written to the terminal. */
const capture = () => {
  const lines: Array<string> = []
  const withConsole = <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Effect.consoleWith((console) =>
      Effect.withConsole(self, {
        ...console,
        log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void lines.push(args.join(" ")))
      })
    )
  return { lines, withConsole }
}

const fresh = () => Accounts.Default.pipe(Layer.provideMerge(Ids.Live), Layer.provideMerge(DatabaseTest))

layer(fresh())("bootstrap: several instances starting at once on an empty database", (it) => {
  it.effect("no key configured: one account, one key, printed once", () =>
    Effect.gen(function*() {
      const { lines, withConsole } = capture()
      yield* Effect.all(Array.from({ length: 4 }, () => bootstrap.pipe(withEnv({}), withConsole)), { concurrency: "unbounded" })
      assert.strictEqual(yield* count("accounts"), 1)
      assert.strictEqual(yield* count("identities"), 1)
      assert.strictEqual(yield* count("api_keys"), 1)
      assert.strictEqual(lines.filter((line) => line.includes("api key: pk_")).length, 1)
    }))
})

layer(fresh())("bootstrap: several instances starting at once with the same configured key", (it) => {
  it.effect("every start succeeds and the key is registered once, for a user of the account", () =>
    Effect.gen(function*() {
      const { lines, withConsole } = capture()
      const env = withEnv({ PLATFORM_API_KEY: "pk_race_configured", PLATFORM_ACCOUNT_ID: "acct-race" })
      yield* Effect.all(Array.from({ length: 4 }, () => bootstrap.pipe(env, withConsole)), { concurrency: "unbounded" })
      assert.strictEqual(yield* count("accounts"), 1)
      assert.strictEqual(yield* count("api_keys"), 1)
      const caller = Option.getOrThrow(yield* (yield* Accounts).findCaller("pk_race_configured"))
      assert.deepStrictEqual(caller.accountIds, ["acct-race"])
      assert.deepStrictEqual(lines, [])
    }))
})
