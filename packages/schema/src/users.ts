/** Users and accounts (v4, served without the `/v4` prefix): who a key is, and new accounts. */
import { Schema } from "effect"
import { Id, JsonObject, NonEmptyString, Nullable } from "./common.js"

/** A member's role in an account. The kit records and reports it; every member may read and write the account. */
export const AccountRole = Schema.Literal("manager", "admin", "editor", "member", "labeler", "disabled", "invited", "viewer")
  .annotations({ identifier: "AccountRole" })
export type AccountRole = typeof AccountRole.Type

export class AccessProfileAccount extends Schema.Class<AccessProfileAccount>("AccessProfileAccount")({
  id: Id,
  name: Schema.String
}) {}

/** A membership: one account of a user and the user's role in it. */
export class AccessProfile extends Schema.Class<AccessProfile>("AccessProfile")({
  id: Id,
  account: AccessProfileAccount,
  role: AccountRole,
  user_id: Id
}) {}

const userFields = {
  id: Id,
  /** The identity's e-mail address; `""` for an identity made without one. */
  email: Schema.String,
  access_profiles: Schema.Array(AccessProfile),
  /** The kit keeps no names, organisations or preferences: `null`. */
  first_name: Nullable(Schema.String),
  last_name: Nullable(Schema.String),
  is_organization_admin: Nullable(Schema.Boolean),
  organization_id: Nullable(Id),
  preferences: Nullable(JsonObject)
}

/** A member of one of the caller's accounts, with the access profiles of the accounts the caller shares with them. */
export class User extends Schema.Class<User>("UserRetrieveResponse")(userFields) {}

/** The caller: its identity and every account it is a member of. */
export class UserInfo extends Schema.Class<UserInfo>("UserInfo")({
  ...userFields,
  /** The profile of the account the request selects (`x-selected-account-id`); `null` without one. */
  assumed_access_profile: Nullable(AccessProfile)
}) {}

export class CreateAccount extends Schema.Class<CreateAccount>("CreateAccount")({
  /** The account's display name. */
  account_name: NonEmptyString
}) {}

export class CreateAccountResponse extends Schema.Class<CreateAccountResponse>("CreateAccountResponse")({
  account_id: Id
}) {}
