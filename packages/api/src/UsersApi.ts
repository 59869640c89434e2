import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CreateAccount, CreateAccountResponse, Id, NotFound, User, UserInfo } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

/** Users and accounts: served without the `/v4` prefix, as the platform does. */
export class UsersApi extends HttpApiGroup.make("users")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.get("info", "/user-info")
      .addSuccess(UserInfo)
      .annotate(OpenApi.Summary, "Who the key is")
      .annotate(
        OpenApi.Description,
        "The caller's identity: its id, e-mail, and one access profile (account and role) per account it is a member of, oldest membership first."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/users/:user_id")
      .setPath(Schema.Struct({ user_id: Id }))
      .addSuccess(User)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a user")
      .annotate(
        OpenApi.Description,
        "A member of one of the caller's accounts, with the access profiles of the accounts the caller shares with them (no others); 404 for anyone else."
      )
  )
  .add(
    HttpApiEndpoint.post("createAccount", "/accounts")
      .setPayload(CreateAccount)
      .addSuccess(CreateAccountResponse)
      .annotate(OpenApi.Summary, "Create an account")
      .annotate(
        OpenApi.Description,
        "Creates an account named `account_name`; the caller becomes its admin at once (its key reads and writes it from the next request on)."
      )
  )
  .annotate(OpenApi.Title, "Users and accounts")
  .annotate(OpenApi.Description, "The identity behind an API key, the members of its accounts, and new accounts.")
{}
