/**
 * First start: make sure the configured key exists (`PLATFORM_API_KEY` + `PLATFORM_ACCOUNT_ID`),
 * or, with neither set and an empty database, create one account and one key and print them once.
 */
import { Console, Effect, Option, Redacted } from "effect"
import { Accounts } from "./auth/Accounts.js"
import { BootstrapAccount, BootstrapKey } from "./config.js"

export const bootstrap = Effect.gen(function*() {
  const accounts = yield* Accounts
  const key = yield* BootstrapKey
  const account = yield* BootstrapAccount
  if (Option.isSome(key)) {
    const plain = Redacted.value(key.value)
    const caller = yield* accounts.findCaller(plain)
    if (Option.isNone(caller)) {
      const made = yield* accounts.provisionUser({ key: plain, ...Option.match(account, { onNone: () => ({}), onSome: (accountId) => ({ accountId }) }) })
      yield* Effect.logInfo(`Configured API key registered for account ${made.accountId}`)
    } else if (Option.isSome(account) && !caller.value.accountIds.includes(account.value)) {
      if (!(yield* accounts.accountExists(account.value))) yield* accounts.createAccount({ id: account.value })
      yield* accounts.addMember(caller.value.identityId, account.value)
    }
    return
  }
  if (yield* accounts.isEmpty) {
    const made = yield* accounts.provisionUser(Option.match(account, { onNone: () => ({}), onSome: (accountId) => ({ accountId }) }))
    yield* Console.log(
      [
        "",
        "  platform-kit: first start, created an account and an API key (shown only this once):",
        `    account: ${made.accountId}`,
        `    api key: ${Redacted.value(made.key)}`,
        ""
      ].join("\n")
    )
  }
})
