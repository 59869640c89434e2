import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Conflict, InferenceModel } from "@platform-kit/schema"
import type { InferenceModelStatus } from "@platform-kit/schema"
import { Effect, Option, Schema, Struct } from "effect"
import type { LifecycleEntity } from "../../engine/Lifecycles.js"
import { makeDocuments } from "../../sql/documents.js"
import { uniqueRefusedAs } from "../../sql/errors.js"
import { containsPattern, likeEscape } from "../../sql/like.js"
import { lockRow } from "../../sql/rowLock.js"

/** A v5 model as stored: the wire resource plus the account that owns it. */
export const StoredInferenceModel = Schema.Struct({ ...InferenceModel.fields, account_id: Schema.String })
export type StoredInferenceModel = typeof StoredInferenceModel.Type

/** The model as answered (without its account). */
export const present = (model: StoredInferenceModel) => new InferenceModel(Struct.omit(model, "account_id"), true)

const columns = (model: StoredInferenceModel) => ({
  id: model.id,
  account_id: model.account_id,
  created_at: model.created_at,
  name: model.name,
  name_lower: model.name.toLowerCase(),
  model_vendor: model.model_vendor,
  model_type: model.model_type,
  status: model.status
})

/** What `model_availability` says of a status. */
export const availabilityOf = (status: InferenceModelStatus) =>
  status === "ready" ? "available" as const : status === "failed" ? "unavailable" as const : "unknown" as const

/** A name its vendor already has in the account: 409. */
const nameTakenAs = (model: StoredInferenceModel) =>
  uniqueRefusedAs(
    { sqliteColumn: "inference_models.name", postgresIndex: "inference_models_account_vendor_name" },
    () => new Conflict({ detail: `A ${model.model_vendor} model named ${model.name} already exists` })
  )

export class InferenceModelsRepo extends Effect.Service<InferenceModelsRepo>()("@platform-kit/server/InferenceModelsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "inference_models",
      label: "Model",
      schema: StoredInferenceModel,
      columns
    })
    const sql = yield* SqlClient.SqlClient
    const { record } = documents

    /** Stores a new model in run 0 of its lifecycle; 409 when its name is taken (a race included). */
    const insert = (model: StoredInferenceModel): Effect.Effect<StoredInferenceModel, Conflict> =>
      sql`INSERT INTO inference_models ${sql.insert(record(model))}`.pipe(Effect.as(model), nameTakenAs(model))

    /** Rewrites `model` (and its run, when given); 409 when its new name is taken. */
    const update = (model: StoredInferenceModel, run?: number): Effect.Effect<StoredInferenceModel, Conflict> => {
      const { id, ...rest } = record(model)
      const values = run === undefined ? rest : { ...rest, deploy_run: run }
      return sql`UPDATE inference_models SET ${sql.update(values)} WHERE id = ${id}`.pipe(Effect.as(model), nameTakenAs(model))
    }

    /** The row lock of model `id` for the rest of the transaction (`lockRow`): call before the read. */
    const lock = (id: string, accountIds: ReadonlyArray<string>) => lockRow(sql, "inference_models", id, accountIds)

    /** The run of model `id`'s lifecycle now (0 for its first deployment). */
    const runOf = (id: string) =>
      Effect.map(
        Effect.orDie(sql<{ deploy_run: number }>`SELECT deploy_run FROM inference_models WHERE id = ${id}`),
        (rows) => Number(rows[0]?.deploy_run ?? 0)
      )

    /** The model of `vendor` named exactly `name` in `accountId`, if there is one. */
    const findByName = (accountId: string, vendor: string, name: string) =>
      documents.findFirst([accountId], [sql`model_vendor = ${vendor}`, sql`name = ${name}`])

    /**
     * Moves the model of a lifecycle's run from `deploying` to `ready` (or `failed`, when `fault`),
     * in one transaction holding its row: only if it is `deploying` in that run; nothing otherwise
     * (a step run again finds it moved, a step of a run since replaced finds another run).
     */
    const settle = (run: LifecycleEntity, fault: string | null) =>
      documents.transaction(Effect.gen(function*() {
        yield* lock(run.id, [run.account_id])
        const found = yield* documents.findById(run.id, [run.account_id])
        if (Option.isNone(found) || found.value.status !== "deploying") return
        if ((yield* runOf(run.id)) !== (run.run ?? 0)) return
        const status = fault !== null ? "failed" as const : "ready" as const
        yield* Effect.orDie(update({ ...found.value, status, model_availability: availabilityOf(status) }))
      }))

    /** Every model of every account still `deploying`, with its run: the lifecycles to make sure of when the engine starts. */
    const pending: Effect.Effect<ReadonlyArray<LifecycleEntity>> = sql<{ id: string; account_id: string; run: number }>`
      SELECT id, account_id, deploy_run AS run FROM inference_models WHERE status = ${"deploying"} ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map((row) => ({ id: row.id, account_id: row.account_id, run: Number(row.run) }))),
      Effect.orDie
    )

    /** The list filters: exact `model_vendor`, case-insensitive `name` substring. */
    const filters = (query: { readonly model_vendor?: string | undefined; readonly name?: string | undefined }) => {
      const where: Array<Statement.Fragment> = []
      if (query.model_vendor !== undefined) where.push(sql`model_vendor = ${query.model_vendor}`)
      if (query.name !== undefined && query.name !== "") {
        where.push(sql`name_lower LIKE ${containsPattern(query.name)} ${sql.literal(likeEscape)}`)
      }
      return where
    }

    return { ...documents, insert, update, lock, runOf, findByName, settle, pending, filters } as const
  })
}) {}
