/**
 * The API key security every endpoint but health and docs requires: `x-api-key`, or
 * `Authorization: Bearer <key>` as agent clients send it. The server implements the middleware and
 * provides the caller's identity to handlers as `CurrentCaller`.
 */
import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Unauthorized } from "@platform-kit/schema"
import type { IdentityType } from "@platform-kit/schema"
import { Context } from "effect"

/** The authenticated caller: its identity and the accounts it is a member of. */
export class CurrentCaller extends Context.Tag("@platform-kit/api/CurrentCaller")<CurrentCaller, {
  readonly identityId: string
  readonly identityType: IdentityType
  readonly accountIds: ReadonlyArray<string>
  /** The account named by `x-selected-account-id`, already checked to be one of `accountIds`. */
  readonly selectedAccountId: string | undefined
}>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Unauthorized,
  provides: CurrentCaller,
  security: {
    apiKey: HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" }),
    bearer: HttpApiSecurity.bearer
  }
}) {}
