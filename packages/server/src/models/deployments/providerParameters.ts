/**
 * A deployment's `model_creation_parameters` checked when they are written (docs/models.md
 * "Providers"): parameters with a `provider` key must be parameters that provider runs, and
 * `api_key_credential_id` must name a credential of the deployment's account; else a 422 at the
 * field. Parameters without `provider` are free (the built-in model runs them).
 */
import {
  BuiltinProviderParameters,
  OpenAiCompatibleProviderParameters,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { CredentialsRepo } from "../../credentials/CredentialsRepo.js"
import { choices, toValidationIssues } from "../../http/issues.js"

const loc = ["body", "model_creation_parameters"] as const

const byProvider = {
  builtin: Schema.decodeUnknownEither(BuiltinProviderParameters, { errors: "all" }),
  openai_compatible: Schema.decodeUnknownEither(OpenAiCompatibleProviderParameters, { errors: "all" })
} as const

const invalid = (issues: ReadonlyArray<ValidationIssue>) => Effect.fail(new ValidationError({ detail: issues }))

export const checkProviderParameters = (
  parameters: Readonly<Record<string, unknown>> | null | undefined,
  accountId: string
): Effect.Effect<void, ValidationError, CredentialsRepo> =>
  Effect.gen(function*() {
    if (parameters == null || parameters.provider === undefined) return
    const provider = parameters.provider
    if (typeof provider !== "string" || !(provider in byProvider)) {
      return yield* invalid([
        new ValidationIssue({
          loc: [...loc, "provider"],
          msg: `Input should be ${choices(Object.keys(byProvider))}`,
          type: "literal_error",
          input: provider,
          ctx: { expected: choices(Object.keys(byProvider)) }
        })
      ])
    }
    const decoded = byProvider[provider as keyof typeof byProvider](parameters)
    if (decoded._tag === "Left") return yield* invalid(toValidationIssues(loc, decoded.left.issue))
    const credentialId = (decoded.right as { readonly api_key_credential_id?: string }).api_key_credential_id
    if (credentialId === undefined) return
    const credential = yield* Effect.flatMap(CredentialsRepo, (repo) => repo.findById(credentialId, [accountId]))
    if (Option.isNone(credential)) {
      return yield* invalid([
        new ValidationIssue({
          loc: [...loc, "api_key_credential_id"],
          msg: `Credential ${credentialId} not found in the deployment's account`,
          type: "value_error",
          input: credentialId
        })
      ])
    }
  })
