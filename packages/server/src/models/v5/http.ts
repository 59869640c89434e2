/**
 * The `modelsV5` group (`/v5/models`, docs/models.md "v5 models"): Launch and LLM Engine models,
 * created `deploying` and made `ready` by their lifecycle on the engine (./workflow.ts).
 */
import {
  Conflict,
  CreateLaunchModel,
  cursorOf,
  InferenceModelDeleted,
  LaunchVendorConfiguration,
  LlmEngineModelConfiguration,
  ValidationError
} from "@platform-kit/schema"
import type { CreateInferenceModel, UpdateInferenceModel } from "@platform-kit/schema"
import { Effect, Either, Layer, Option, type ParseResult, Schema } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { Lifecycles } from "../../engine/Lifecycles.js"
import type { ImplementGroup } from "../../http/groups.js"
import { toValidationIssues } from "../../http/issues.js"
import { freshIdentity } from "../../platform/Ids.js"
import { availabilityOf, InferenceModelsRepo, present, type StoredInferenceModel } from "./InferenceModelsRepo.js"

const isLaunch = Schema.is(CreateLaunchModel)

/** The vendor a create names, else the one its body's shape is (a Launch body has `model_image` and `model_infra`). */
const vendorOf = (payload: CreateInferenceModel): "launch" | "llmengine" =>
  payload.model_vendor ?? (isLaunch(payload) ? "launch" : "llmengine")

const deployingRefused = (model: StoredInferenceModel, what: string) =>
  new Conflict({ detail: `Model ${model.id} is deploying: it cannot be ${what} until it is ready or failed` })

const decodeLaunch = Schema.decodeUnknownEither(LaunchVendorConfiguration)
const decodeLlmEngine = Schema.decodeUnknownEither(LlmEngineModelConfiguration)

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A model's vendor configuration with an update's partial merged in (a Launch model's
 * `model_image` and `model_infra` each field by field; an LLM Engine model's fields), checked as a
 * whole: a 422 at `["body","vendor_configuration", …]` when the result is not a valid configuration.
 */
const mergedConfiguration = (model: StoredInferenceModel, partial: Readonly<Record<string, unknown>>) => {
  const current: Record<string, unknown> = model.vendor_configuration === null ? {} : { ...model.vendor_configuration }
  let merged: Record<string, unknown>
  if (model.model_vendor === "launch") {
    merged = { ...current }
    for (const [key, value] of Object.entries(partial)) {
      merged[key] = key in current && isObject(current[key]) && isObject(value) ? { ...current[key], ...value } : value
    }
  } else {
    merged = { ...current, ...partial }
  }
  const decoded: Either.Either<StoredInferenceModel["vendor_configuration"] & {}, ParseResult.ParseError> = model.model_vendor === "launch"
    ? decodeLaunch(merged, { errors: "all" })
    : decodeLlmEngine(merged, { errors: "all" })
  return Either.match(decoded, {
    onRight: (configuration) => Effect.succeed(configuration),
    onLeft: (error) => Effect.fail(new ValidationError({ detail: toValidationIssues(["body", "vendor_configuration"], error.issue) }))
  })
}

export const ModelsV5Http = (group: ImplementGroup) =>
  group("modelsV5", (handlers) =>
    Effect.gen(function*() {
      const repo = yield* InferenceModelsRepo
      const lifecycles = yield* Lifecycles

      /** The model `id` of the caller's accounts, its row locked for the rest of the transaction (else 404). */
      const ownedLocked = (id: string) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.zipRight(repo.lock(id, accounts), repo.get(id, accounts)))

      /** Starts the lifecycle of a model's deployment `run` (deploying → ready on the engine). */
      const deploy = (model: StoredInferenceModel, run: number) =>
        lifecycles.start({ workflow: "InferenceModel", id: model.id, account_id: model.account_id, ...(run === 0 ? {} : { run }) })

      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            const model_vendor = vendorOf(payload)
            const model_type = payload.model_type ?? (model_vendor === "launch" ? "generic" : "chat_completion")
            const { model, run } = yield* repo.transaction(Effect.gen(function*() {
              const existing = yield* repo.findByName(account_id, model_vendor, payload.name)
              if (Option.isSome(existing)) {
                if (payload.on_conflict !== "update") {
                  return yield* Effect.fail(new Conflict({ detail: `A ${model_vendor} model named ${payload.name} already exists` }))
                }
                // on_conflict "update": the existing model takes the new configuration and deploys again
                // found by name a moment ago, in this transaction: there
                const current = yield* Effect.catchTag(ownedLocked(existing.value.id), "NotFound", Effect.die)
                if (current.status === "deploying") return yield* Effect.fail(deployingRefused(current, "updated"))
                const run = (yield* repo.runOf(current.id)) + 1
                const next: StoredInferenceModel = {
                  ...current,
                  model_type,
                  vendor_configuration: payload.vendor_configuration,
                  model_metadata: payload.model_metadata ?? current.model_metadata,
                  status: "deploying",
                  model_availability: availabilityOf("deploying")
                }
                return { model: yield* repo.update(next, run), run }
              }
              const [id, created_at] = yield* freshIdentity
              const model: StoredInferenceModel = {
                id,
                account_id,
                created_at,
                ...(yield* createdBy),
                model_type,
                model_vendor,
                name: payload.name,
                status: "deploying",
                model_availability: availabilityOf("deploying"),
                model_metadata: payload.model_metadata ?? null,
                vendor_configuration: payload.vendor_configuration,
                object: "model"
              }
              return { model: yield* repo.insert(model), run: 0 }
            }))
            yield* deploy(model, run)
            return present(model)
          }))
        .handle("list", ({ urlParams }) =>
          Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
            Effect.map(
              repo.cursorPage({ accountIds, ...cursorOf(urlParams), where: repo.filters(urlParams) }),
              (page) => ({ ...page, items: page.items.map(present) })
            )))
        .handle("get", ({ path }) =>
          Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.get(path.inference_model_id, accounts), present)))
        .handle("update", ({ path, payload }) =>
          Effect.gen(function*() {
            const { model, run } = yield* repo.transaction(updated(path.inference_model_id, payload))
            if (run !== undefined) yield* deploy(model, run)
            return present(model)
          }))
        .handle("delete", ({ path }) =>
          repo.transaction(Effect.gen(function*() {
            const current = yield* ownedLocked(path.inference_model_id)
            if (current.status === "deploying") return yield* Effect.fail(deployingRefused(current, "deleted"))
            yield* repo.remove(current.id)
            return new InferenceModelDeleted({ id: current.id, deleted: true, object: "model" })
          })))

      /**
       * An update, inside its transaction: metadata and name at once, a name taken a 409 (or swapped
       * with the model holding it, `on_conflict: "swap"`), a vendor configuration merged in and a
       * new run of the lifecycle (`run`, started by the caller once the change is committed).
       */
      function updated(id: string, payload: UpdateInferenceModel) {
        return Effect.gen(function*() {
          const current = yield* ownedLocked(id)
          if (current.status === "deploying") return yield* Effect.fail(deployingRefused(current, "updated"))
          let next: StoredInferenceModel = current
          if (payload.model_metadata !== undefined) next = { ...next, model_metadata: payload.model_metadata }
          let run: number | undefined
          if (payload.vendor_configuration !== undefined) {
            const vendor_configuration = yield* mergedConfiguration(current, payload.vendor_configuration)
            next = { ...next, vendor_configuration, status: "deploying", model_availability: availabilityOf("deploying") }
            run = (yield* repo.runOf(current.id)) + 1
          }
          if (payload.name !== undefined && payload.name !== current.name) {
            const holder = yield* repo.findByName(current.account_id, current.model_vendor, payload.name)
            if (Option.isSome(holder)) {
              if (payload.on_conflict !== "swap") {
                return yield* Effect.fail(new Conflict({ detail: `A ${current.model_vendor} model named ${payload.name} already exists` }))
              }
              const other = yield* ownedLocked(holder.value.id)
              if (other.status === "deploying") return yield* Effect.fail(deployingRefused(other, "renamed"))
              // the names change hands: this model's first steps aside (a name no caller can give)
              yield* repo.update({ ...current, name: `\u0001swap ${current.id}` })
              yield* repo.update({ ...other, name: current.name })
            }
            next = { ...next, name: payload.name }
          }
          return { model: yield* repo.update(next, run), run }
        })
      }
    })
  ).pipe(Layer.provide(InferenceModelsRepo.Default))
