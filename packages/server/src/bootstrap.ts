/**
 * First start: make sure the configured key exists (`PLATFORM_API_KEY` + `PLATFORM_ACCOUNT_ID`),
 * or, with neither set and an empty database, create one account and one key and print them once.
 *
 * Several instances may start at once on one database (docs/postgresql.md): the whole check and
 * its writes run in one transaction that first takes the bootstrap lock (`transactionLock`), so
 * the instances go one after the other and only the first finds the database empty or the key
 * missing. The key is printed only once that transaction has committed.
 */
import { SqlClient } from "@effect/sql"
import { Console, Effect, Option, Redacted } from "effect"
import { Accounts } from "./auth/Accounts.js"
import { BootstrapAccount, BootstrapKey } from "./config.js"
import { transactionLock } from "./sql/dialect.js"

export const bootstrap = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const accounts = yield* Accounts
  const key = yield* BootstrapKey
  const account = yield* BootstrapAccount
  const onAccount = Option.match(account, { onNone: () => ({}), onSome: (accountId) => ({ accountId }) })

  const made = yield* sql.withTransaction(Effect.gen(function*() {
    yield* transactionLock(sql, "bootstrap")
    if (Option.isSome(key)) {
      const plain = Redacted.value(key.value)
      const caller = yield* accounts.findCaller(plain)
      if (Option.isNone(caller)) {
        const made = yield* accounts.provisionUser({ key: plain, ...onAccount })
        yield* Effect.logInfo(`Configured API key registered for account ${made.accountId}`)
      } else if (Option.isSome(account) && !caller.value.accountIds.includes(account.value)) {
        if (!(yield* accounts.accountExists(account.value))) yield* accounts.createAccount({ id: account.value })
        yield* accounts.addMember(caller.value.identityId, account.value)
      }
      return Option.none()
    }
    if (!(yield* accounts.isEmpty)) return Option.none()
    return Option.some(yield* accounts.provisionUser(onAccount))
  })).pipe(Effect.orDie)

  if (Option.isSome(made)) {
    yield* Console.log(
      [
        "",
        "  platform-kit: first start, created an account and an API key (shown only this once):",
        `    account: ${made.value.accountId}`,
        `    api key: ${Redacted.value(made.value.key)}`,
        ""
      ].join("\n")
    )
  }
})
