/**
 * Who may see and write what: the ownership rules of docs/decisions.md "Accounts",
 * in one place for every family.
 */
import { CurrentCaller } from "@platform-kit/api"
import { Forbidden, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect } from "effect"

const forbidden = (accountId: string) =>
  new Forbidden({ detail: `Account ${accountId} is not accessible with this API key` })

/**
 * Fails with 403 when `x-selected-account-id` names an account the caller is not in, whatever the
 * request (reads by id and creates naming their account included).
 */
export const checkSelectedAccount = Effect.flatMap(CurrentCaller, (caller) =>
  caller.selectedAccountId === undefined || caller.accountIds.includes(caller.selectedAccountId)
    ? Effect.void
    : Effect.fail(forbidden(caller.selectedAccountId)))

/** Fails with 403 unless the caller is a member of `accountId` (and any selected account is theirs). */
export const requireAccount = (accountId: string) =>
  Effect.zipRight(
    checkSelectedAccount,
    Effect.flatMap(CurrentCaller, (caller) =>
      caller.accountIds.includes(accountId) ? Effect.succeed(accountId) : Effect.fail(forbidden(accountId)))
  )

/** The selected account (`x-selected-account-id`), checked; none when the header is absent. */
const selectedAccount = Effect.flatMap(CurrentCaller, (caller) =>
  caller.selectedAccountId === undefined
    ? Effect.succeed(undefined)
    : requireAccount(caller.selectedAccountId))

/**
 * The account a create writes to: the body's `account_id`, else the selected account, else the
 * caller's only account. With several accounts and none named, the field is required (422 at
 * `loc`).
 */
export const accountForWrite = (accountId: string | undefined, loc: ReadonlyArray<string> = ["body", "account_id"]) =>
  Effect.gen(function*() {
    if (accountId !== undefined) return yield* requireAccount(accountId)
    const selected = yield* selectedAccount
    if (selected !== undefined) return selected
    const caller = yield* CurrentCaller
    if (caller.accountIds.length === 1) return caller.accountIds[0]!
    return yield* Effect.fail(
      new ValidationError({
        detail: [
          new ValidationIssue({
            loc,
            msg: "Field required: the API key belongs to several accounts, name one",
            type: "missing",
            input: null
          })
        ]
      })
    )
  })

/**
 * The accounts a list reads: the `account_id` filter (403 if not the caller's), else the selected
 * account, else every account of the caller.
 */
export const accountsForRead = (accountId?: string | undefined) =>
  Effect.gen(function*() {
    if (accountId !== undefined) return [yield* requireAccount(accountId)] as ReadonlyArray<string>
    const selected = yield* selectedAccount
    if (selected !== undefined) return [selected] as ReadonlyArray<string>
    return (yield* CurrentCaller).accountIds
  })

/** Every account of the caller: what a read by id looks in (403 for a foreign selected account). */
export const callerAccounts = Effect.zipRight(checkSelectedAccount, Effect.map(CurrentCaller, (caller) => caller.accountIds))

/** The v4 audit fields that come from the key, never from the body. */
export const createdBy = Effect.map(CurrentCaller, (caller) => ({
  created_by_user_id: caller.identityId,
  created_by_identity_type: caller.identityType
}))

/** The v5 `created_by` identity object of the caller. */
export const createdByIdentity = Effect.map(CurrentCaller, (caller) => ({
  id: caller.identityId,
  type: caller.identityType,
  object: "identity" as const
}))
