/**
 * Credentials (v5; docs/credentials.md). A credential is a named secret of an account; its secret
 * value is write-only except through the dedicated secret endpoint, so no read schema has a
 * secret field.
 */
import { Schema } from "effect"
import { DateTimeString, Id, IdentityType, JsonObject, NonEmptyString, Nullable, Optional, V5PageQuery } from "./common.js"

export class Credential extends Schema.Class<Credential>("Credential")({
  id: Id,
  created_by_user_id: Id,
  created_by_identity_type: IdentityType,
  type: Schema.String,
  name: Schema.String,
  description: Nullable(Schema.String),
  credential_metadata: Nullable(JsonObject),
  created_at: DateTimeString,
  updated_at: DateTimeString,
  object: Schema.Literal("credential")
}) {}

/** A secret value on the wire: a non-empty string, held as `Redacted` so it never prints. */
export const SecretValue = Schema.Redacted(NonEmptyString).annotations({
  description: "The credential payload to be encrypted; write-only, returned only by the secret endpoints"
})

/** What existing clients send as `type`: `key` or `json` (any other non-empty string is kept too). */
export const CredentialType = NonEmptyString.annotations({
  description: "The kind of payload: key or json",
  examples: ["key", "json"]
})

/**
 * `POST /v5/credentials`, as existing clients send it: `name`, `payload` (the value sealed at
 * rest) and `type` required; `credential_metadata`, `description` optional. `secret` is an older
 * name of `payload`, still accepted (`payload` wins when both are given); a body with neither is
 * a 422 `missing` at `["body","payload"]` (checked by the server after the shape). `account_id` is
 * optional: the `x-selected-account-id` account, else the key's only account.
 */
export class CreateCredential extends Schema.Class<CreateCredential>("CreateCredential")({
  name: NonEmptyString,
  type: CredentialType,
  payload: Optional(SecretValue),
  /** Deprecated alias of `payload`. */
  secret: Optional(SecretValue),
  description: Optional(Schema.String),
  credential_metadata: Optional(JsonObject),
  account_id: Optional(Id)
}) {}

/**
 * A partial update: only the fields given change. `name`, `type` and `payload` (or its older name
 * `secret`) absent or `null` mean "unchanged"; `description` and `credential_metadata` set to
 * `null` clear the value.
 */
export class UpdateCredential extends Schema.Class<UpdateCredential>("UpdateCredential")({
  name: Optional(NonEmptyString),
  type: Optional(CredentialType),
  payload: Optional(SecretValue),
  /** Deprecated alias of `payload`. */
  secret: Optional(SecretValue),
  description: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  credential_metadata: Schema.optionalWith(Schema.NullOr(JsonObject), { exact: true })
}) {}

/**
 * The answer of `POST /v5/credentials/{credential_id}/secret` and
 * `POST /v5/credentials/name/{credential_name}/secret`: the decrypted payload in `result`.
 */
export class CredentialSecret extends Schema.Class<CredentialSecret>("CredentialSecret")({
  result: Schema.Redacted(Schema.String),
  object: Schema.Literal("credential_secret")
}) {}

/** `GET /v5/credentials`: cursor page, account, case-insensitive `name` substring, exact `type`. */
export const CredentialListQuery = Schema.Struct({
  ...V5PageQuery(["created_at", "updated_at", "name"]),
  account_id: Schema.optionalWith(Id, { exact: true }),
  name: Schema.optionalWith(Schema.String, { exact: true }),
  type: Schema.optionalWith(Schema.String, { exact: true })
})

/**
 * `GET /v5/credentials/name/{credential_name}` (and the secret by name): optionally narrowed to one
 * account; else the selected account, else every account of the caller — where a name found in
 * more than one of them is a 422 on `x-selected-account-id`.
 */
export const CredentialByNameQuery = Schema.Struct({
  account_id: Schema.optionalWith(Id, { exact: true })
})
