/**
 * Users and accounts (docs/users.md): who a key is, the members of the caller's accounts, and new
 * accounts. Identities, memberships and accounts are the auth floor's (auth/Accounts.ts).
 */
import { CurrentCaller } from "@platform-kit/api"
import {
  AccessProfile,
  AccessProfileAccount,
  CreateAccountResponse,
  NotFound,
  User,
  UserInfo
} from "@platform-kit/schema"
import { Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { type MembershipRow, Accounts } from "../auth/Accounts.js"
import { callerAccounts, checkSelectedAccount } from "../auth/access.js"
import type { ImplementGroup } from "../http/groups.js"

/**
 * A membership's id: the kit keys memberships by identity and account, so the profile's id is a
 * UUID derived from the two (the same every time, different for every membership).
 */
const accessProfileId = (identityId: string, accountId: string) => {
  const hex = Crypto.createHash("sha256").update(`access-profile:${identityId}:${accountId}`).digest("hex")
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

const profileOf = (identityId: string) => (row: MembershipRow) =>
  new AccessProfile({
    id: accessProfileId(identityId, row.account_id),
    account: new AccessProfileAccount({ id: row.account_id, name: row.account_name }),
    role: row.role,
    user_id: identityId
  }, true)

/** What the kit does not keep about a user (docs/users.md "Decisions"). */
const unknownDetails = {
  first_name: null,
  last_name: null,
  is_organization_admin: null,
  organization_id: null,
  preferences: null
} as const

export const UsersHttp = (group: ImplementGroup) =>
  group("users", (handlers) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      return handlers
        // with `x-selected-account-id`, that account's profile is the one assumed
        .handle("info", () =>
          Effect.gen(function*() {
            yield* checkSelectedAccount
            const caller = yield* CurrentCaller
            const identity = yield* accounts.findIdentity(caller.identityId)
            const profiles = (yield* accounts.membershipsOf(caller.identityId)).map(profileOf(caller.identityId))
            const assumed = profiles.find((profile) => profile.account.id === caller.selectedAccountId)
            return new UserInfo({
              ...unknownDetails,
              id: caller.identityId,
              email: Option.match(identity, { onNone: () => "", onSome: (found) => found.email ?? "" }),
              access_profiles: profiles,
              assumed_access_profile: assumed ?? null
            }, true)
          }))
        .handle("get", ({ path }) =>
          Effect.gen(function*() {
            const shared = yield* accounts.membershipsOf(path.user_id, yield* callerAccounts)
            const identity = yield* accounts.findIdentity(path.user_id)
            if (shared.length === 0 || Option.isNone(identity)) {
              return yield* Effect.fail(new NotFound({ detail: `User ${path.user_id} not found` }))
            }
            return new User({ ...unknownDetails, id: path.user_id, email: identity.value.email ?? "", access_profiles: shared.map(profileOf(path.user_id)) }, true)
          }))
        .handle("createAccount", ({ payload }) =>
          Effect.gen(function*() {
            yield* checkSelectedAccount
            const caller = yield* CurrentCaller
            return new CreateAccountResponse({ account_id: yield* accounts.createAccountFor(caller.identityId, payload.account_name) })
          }))
    })
  )
