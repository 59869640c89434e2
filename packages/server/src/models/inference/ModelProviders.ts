/**
 * Finds the provider of a deployment (docs/models.md "Providers"): its `model_creation_parameters`
 * name one (`provider`: `builtin`, or `openai_compatible` with its keys); without a `provider` key
 * the deployment runs the built-in model. An upstream's API key is the secret of a credential of
 * the deployment's account, decrypted in memory for the call: never logged, never answered.
 */
import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Conflict, type ModelDeployment, type OpenAiCompatibleProviderParameters, ProviderParameters } from "@platform-kit/schema"
import { Effect, Layer, Option, ParseResult, Redacted, Schema, Scope } from "effect"
import { CredentialsRepo } from "../../credentials/CredentialsRepo.js"
import { SecretBox } from "../../credentials/SecretBox.js"
import { builtinProvider } from "./builtinProvider.js"
import type { Provider } from "./Provider.js"
import * as UpstreamHttpClient from "./upstreamHttpClient.js"

const decodeParameters = Schema.decodeUnknownEither(ProviderParameters)

const unusable = (deployment: ModelDeployment, why: string) =>
  new Conflict({ detail: `Model deployment ${deployment.id} cannot run: ${why}` })

export class ModelProviders extends Effect.Service<ModelProviders>()("@platform-kit/server/ModelProviders", {
  scoped: Effect.gen(function*() {
    const credentials = yield* CredentialsRepo
    const box = yield* SecretBox
    // undici's dispatcher, made at the first call to an upstream (loading undici costs the
    // server's start about a fifth of a second: docs/benchmarks.md "Start-up"), closed with the
    // service; the client on it is upstreamHttpClient.ts's (no Node AbortSignal per call)
    const scope = yield* Effect.scope
    const httpClient = yield* Effect.cached(
      Effect.map(Scope.extend(NodeHttpClient.makeDispatcher, scope), UpstreamHttpClient.make)
    )
    /**
     * The upstream client of each deployment and process, made at its first call and kept while
     * its parameters stay (a PATCH of them makes a new one), with the deployment's bound on the
     * calls at once. It holds no key: the key is read and decrypted for each call.
     */
    const upstreams = new Map<string, Effect.Effect<(apiKey: Redacted.Redacted | undefined) => Provider>>()
    const upstreamOf = (deployment: ModelDeployment, parameters: typeof OpenAiCompatibleProviderParameters.Type) =>
      Effect.suspend(() => {
        const key = `${deployment.id}\u0000${JSON.stringify(parameters)}`
        const found = upstreams.get(key)
        if (found !== undefined) return found
        // made once, whoever asks while it is made waits for the same one (one semaphore: the
        // first calls at once to a deployment keep its max_concurrency too)
        const made = Effect.runSync(Effect.cached(Effect.gen(function*() {
          // loaded at the first call to an upstream: the OpenAI client is a large module, kept off
          // the server's start (docs/benchmarks.md "Start-up")
          const { openAiCompatibleProvider } = yield* Effect.promise(() => import("./openAiCompatible.js"))
          return yield* openAiCompatibleProvider(parameters, yield* Effect.makeSemaphore(parameters.max_concurrency)).pipe(
            Effect.provideService(HttpClient.HttpClient, yield* httpClient)
          )
        })))
        for (const stale of upstreams.keys()) if (stale.startsWith(`${deployment.id}\u0000`)) upstreams.delete(stale)
        upstreams.set(key, made)
        return made
      })

    // a deployment's parameters decoded, and its upstream's client once made, kept with the
    // deployment as read (ModelDeploymentsRepo.getCommitted answers the same object until the next commit)
    const known = new WeakMap<ModelDeployment, {
      readonly decoded: ReturnType<typeof decodeParameters>
      upstream?: (apiKey: Redacted.Redacted | undefined) => Provider
    }>()

    /** The provider that runs `deployment`'s model; 409 when its parameters name none the kit can run. */
    const forDeployment = (deployment: ModelDeployment): Effect.Effect<Provider, Conflict> =>
      Effect.gen(function*() {
        const given = deployment.model_creation_parameters
        if (given === null || given.provider === undefined) return builtinProvider
        let seen = known.get(deployment)
        if (seen === undefined) known.set(deployment, seen = { decoded: decodeParameters(given) })
        const decoded = seen.decoded
        if (decoded._tag === "Left") {
          return yield* Effect.fail(
            unusable(deployment, `its model_creation_parameters do not name a provider: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
          )
        }
        const parameters = decoded.right
        if (parameters.provider === "builtin") return builtinProvider
        let apiKey: Redacted.Redacted | undefined
        if (parameters.api_key_credential_id !== undefined) {
          const id = parameters.api_key_credential_id
          const credential = yield* credentials.findById(id, [deployment.account_id])
          const sealed = Option.isNone(credential) ? Option.none<string>() : yield* credentials.sealedSecret(id)
          if (Option.isNone(sealed)) return yield* Effect.fail(unusable(deployment, `its API key credential ${id} does not exist`))
          apiKey = Redacted.make(yield* box.decrypt(sealed.value, id))
        }
        seen.upstream ??= yield* upstreamOf(deployment, parameters)
        return seen.upstream(apiKey)
      })

    return { forDeployment } as const
  }),
  dependencies: [CredentialsRepo.Default, SecretBox.Live]
}) {
  /** Providers as a test or an embedding program gives them: every deployment runs `provider`. */
  static readonly fixed = (provider: Provider) =>
    Layer.succeed(ModelProviders, ModelProviders.make({ forDeployment: () => Effect.succeed(provider) }))
}
