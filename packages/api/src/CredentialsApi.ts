import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  Conflict,
  CreateCredential,
  Credential,
  CredentialByNameQuery,
  CredentialListQuery,
  CredentialSecret,
  Id,
  NotFound,
  UpdateCredential,
  V5List
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const CredentialPath = Schema.Struct({ credential_id: Id })

export class CredentialsApi extends HttpApiGroup.make("credentials")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/credentials")
      .setPayload(CreateCredential)
      .addSuccess(Credential)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create a credential")
      .annotate(
        OpenApi.Description,
        "Stores a credential with its `payload` encrypted at rest; names are unique per account (409). The answer never carries the secret."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/credentials")
      .setUrlParams(CredentialListQuery)
      .addSuccess(V5List(Credential))
      .annotate(OpenApi.Summary, "List credentials")
      .annotate(
        OpenApi.Description,
        "Lists the credentials of the caller's accounts (`account_id` narrows to one) with the v5 cursor; `name` (substring) and `type` filter. No secrets."
      )
  )
  .add(
    HttpApiEndpoint.get("getByName", "/v5/credentials/name/:credential_name")
      .setPath(Schema.Struct({ credential_name: Schema.String }))
      .setUrlParams(CredentialByNameQuery)
      .addSuccess(Credential)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a credential by name")
      .annotate(
        OpenApi.Description,
        "Answers the credential named exactly this, in the `account_id` query's account, else the selected account, else every account of the caller; a name found in several is a 422."
      )
  )
  .add(
    HttpApiEndpoint.post("secretByName", "/v5/credentials/name/:credential_name/secret")
      .setPath(Schema.Struct({ credential_name: Schema.String }))
      .setUrlParams(CredentialByNameQuery)
      .addSuccess(CredentialSecret)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Decrypt a credential by name")
      .annotate(OpenApi.Description, "The decrypted payload of the credential with this name (see the read by name).")
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/credentials/:credential_id")
      .setPath(CredentialPath)
      .addSuccess(Credential)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a credential")
      .annotate(
        OpenApi.Description,
        "Answers the credential, without its secret; 404 when it is not in the caller's accounts."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/credentials/:credential_id")
      .setPath(CredentialPath)
      .setPayload(UpdateCredential)
      .addSuccess(Credential)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a credential")
      .annotate(
        OpenApi.Description,
        "Changes the fields given; a new `payload` is encrypted anew, a name already taken is a 409."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/credentials/:credential_id")
      .setPath(CredentialPath)
      .addSuccess(Credential)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a credential")
      .annotate(OpenApi.Description, "Deletes the credential and its secret for good; answers it as it was.")
  )
  .add(
    HttpApiEndpoint.post("secret", "/v5/credentials/:credential_id/secret")
      .setPath(CredentialPath)
      .addSuccess(CredentialSecret)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Decrypt a credential")
      .annotate(OpenApi.Description, "The decrypted payload, for members of the credential's account only.")
  )
  .annotate(OpenApi.Title, "Credentials")
  .annotate(
    OpenApi.Description,
    "Credentials (v5): named secrets of an account, encrypted at rest and revealed only by the decrypt endpoints."
  )
{}
