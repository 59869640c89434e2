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
  )
  .add(HttpApiEndpoint.get("list", "/v5/credentials").setUrlParams(CredentialListQuery).addSuccess(V5List(Credential)))
  .add(
    HttpApiEndpoint.get("getByName", "/v5/credentials/name/:credential_name")
      .setPath(Schema.Struct({ credential_name: Schema.String }))
      .setUrlParams(CredentialByNameQuery)
      .addSuccess(Credential)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("secretByName", "/v5/credentials/name/:credential_name/secret")
      .setPath(Schema.Struct({ credential_name: Schema.String }))
      .setUrlParams(CredentialByNameQuery)
      .addSuccess(CredentialSecret)
      .addError(NotFound)
      .annotate(OpenApi.Description, "The decrypted payload of the credential with this name (see the read by name).")
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/credentials/:credential_id")
      .setPath(CredentialPath)
      .addSuccess(Credential)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/credentials/:credential_id")
      .setPath(CredentialPath)
      .setPayload(UpdateCredential)
      .addSuccess(Credential)
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/credentials/:credential_id")
      .setPath(CredentialPath)
      .addSuccess(Credential)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Deletes the credential and its secret for good; answers it as it was.")
  )
  .add(
    HttpApiEndpoint.post("secret", "/v5/credentials/:credential_id/secret")
      .setPath(CredentialPath)
      .addSuccess(CredentialSecret)
      .addError(NotFound)
      .annotate(OpenApi.Description, "The decrypted payload, for members of the credential's account only.")
  )
  .annotate(OpenApi.Title, "Credentials")
{}
