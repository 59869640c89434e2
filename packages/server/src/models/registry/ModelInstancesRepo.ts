/**
 * The model registry (docs/models.md): models as stored, and as the API answers them (with
 * `deployment_count`, the JSON Schemas of their type, and the `Deployments` / `ModelGroup` views).
 */
import { SqlClient } from "@effect/sql"
import {
  Conflict,
  type FineTuningJob,
  ModelDeployment,
  ModelGroup,
  ModelInstance,
  type ModelInstanceSortField,
  type ModelInstanceSortKey,
  type ModelInstanceView,
  modelTypeTraits,
  type ModelType,
  NotFound,
  StoredModelInstance
} from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { makeDocuments, type Page } from "../../sql/documents.js"
import { orderBySortKeys } from "../sortOrder.js"

/** An object field as the text its sort column holds: its JSON, or NULL when absent. */
const jsonText = (value: object | null) => (value === null ? null : JSON.stringify(value))

/** The deployments of a model, counted: a scalar subquery over `model_deployments`. */
const deploymentCount = "(SELECT COUNT(*) FROM model_deployments d WHERE d.model_instance_id = model_instances.id)"

/**
 * What each sort field orders by. Stored fields by their column; `deployment_count` and
 * `deployments` by the number of deployments; `model_group` by the group's id; `created_by_user`
 * by the user's id; `request_schema`, `response_schema` and `supports_multi_turn` (derived from
 * the type) by `model_type`.
 */
const sortColumns: Record<ModelInstanceSortField, string> = {
  display_name: "display_name",
  model_vendor: "model_vendor",
  base_model_id: "base_model_id",
  base_model_metadata: "base_model_metadata",
  model_creation_parameters: "model_creation_parameters",
  model_card: "model_card",
  training_data_card: "training_data_card",
  description: "description",
  model_template_id: "model_template_id",
  model_group_id: "model_group_id",
  model_group: "model_group_id",
  request_schema: "model_type",
  response_schema: "model_type",
  deployment_count: deploymentCount,
  supports_multi_turn: "model_type",
  deployments: deploymentCount,
  id: "id",
  created_at: "created_at",
  account_id: "account_id",
  created_by_user_id: "created_by_user_id",
  created_by_user: "created_by_user_id",
  name: "name",
  model_type: "model_type"
}

const decodeDeployment = Schema.decodeUnknownSync(ModelDeployment)
const decodeGroup = Schema.decodeUnknownSync(ModelGroup)

export class ModelInstancesRepo extends Effect.Service<ModelInstancesRepo>()("@platform-kit/server/ModelInstancesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "model_instances",
      label: "Model",
      schema: StoredModelInstance,
      columns: (model) => ({
        id: model.id,
        account_id: model.account_id,
        created_at: model.created_at,
        name: model.name,
        model_type: model.model_type,
        display_name: model.display_name,
        model_vendor: model.model_vendor,
        base_model_id: model.base_model_id,
        base_model_metadata: jsonText(model.base_model_metadata),
        model_creation_parameters: jsonText(model.model_creation_parameters),
        model_card: model.model_card,
        training_data_card: model.training_data_card,
        description: model.description,
        model_template_id: model.model_template_id,
        model_group_id: model.model_group_id,
        created_by_user_id: model.created_by_user_id
      })
    })

    /** The deployments of each of `ids`, counted (one query). */
    const countsOf = (ids: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.succeed(new Map<string, number>()) : Effect.map(
        Effect.orDie(sql<{ model_instance_id: string; n: number }>`
          SELECT model_instance_id, COUNT(*) AS n FROM model_deployments WHERE ${sql.in("model_instance_id", ids)}
          GROUP BY model_instance_id`),
        (rows) => new Map(rows.map((row) => [row.model_instance_id, Number(row.n)]))
      )

    /** The deployments of each of `ids`, newest first (one query). */
    const deploymentsOf = (ids: ReadonlyArray<string>) =>
      Effect.map(
        Effect.orDie(sql<{ doc: string }>`
          SELECT doc FROM model_deployments WHERE ${sql.in("model_instance_id", ids)} ORDER BY created_at DESC, id DESC`),
        (rows) => {
          const byModel = new Map<string, Array<ModelDeployment>>()
          for (const row of rows) {
            const deployment = decodeDeployment(JSON.parse(row.doc))
            const list = byModel.get(deployment.model_instance_id) ?? []
            list.push(deployment)
            byModel.set(deployment.model_instance_id, list)
          }
          return byModel
        }
      )

    /** The model groups of `ids` (one query). */
    const groupsOf = (ids: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.succeed(new Map<string, ModelGroup>()) : Effect.map(
        Effect.orDie(sql<{ doc: string }>`SELECT doc FROM model_groups WHERE ${sql.in("id", ids)}`),
        (rows) => new Map(rows.map((row) => decodeGroup(JSON.parse(row.doc))).map((group) => [group.id, group]))
      )

    /** Stored models as the API answers them, with `views` (two or three queries, however many models). */
    const present = (stored: ReadonlyArray<StoredModelInstance>, views: ReadonlyArray<ModelInstanceView>) =>
      Effect.gen(function*() {
        const ids = stored.map((model) => model.id)
        const counts = yield* countsOf(ids)
        const deployments = views.includes("Deployments") && ids.length > 0 ? yield* deploymentsOf(ids) : undefined
        const groups = views.includes("ModelGroup")
          ? yield* groupsOf([...new Set(stored.flatMap((model) => (model.model_group_id === null ? [] : [model.model_group_id])))])
          : undefined
        return stored.map((model) => {
          const group = groups === undefined || model.model_group_id === null ? undefined : groups.get(model.model_group_id)
          return new ModelInstance({
            ...model,
            deployment_count: counts.get(model.id) ?? 0,
            ...modelTypeTraits(model.model_type),
            ...(deployments !== undefined ? { deployments: deployments.get(model.id) ?? [] } : {}),
            ...(group !== undefined ? { model_group: group } : {})
          }, true)
        })
      })

    const presentOne = (stored: StoredModelInstance, views: ReadonlyArray<ModelInstanceView>) =>
      Effect.map(present([stored], views), (all) => all[0]!)

    /** One v4 page of the models of `accountIds`, filtered, sorted by `sortBy` in order then newest first, with `views`. */
    const pageSorted = (request: {
      readonly accountIds: ReadonlyArray<string>
      readonly page: number
      readonly limit: number
      readonly sortBy: ReadonlyArray<ModelInstanceSortKey>
      readonly modelGroupId?: string | undefined
      readonly modelType?: ModelType | undefined
      readonly views: ReadonlyArray<ModelInstanceView>
    }): Effect.Effect<Page<ModelInstance>> =>
      Effect.gen(function*() {
        const page = yield* documents.page({
          accountIds: request.accountIds,
          page: request.page,
          limit: request.limit,
          where: [
            ...(request.modelGroupId === undefined ? [] : [sql`model_group_id = ${request.modelGroupId}`]),
            ...(request.modelType === undefined ? [] : [sql`model_type = ${request.modelType}`])
          ],
          orderBy: orderBySortKeys<ModelInstanceSortField>(sql, request.sortBy, sortColumns)
        })
        return { ...page, items: yield* present(page.items, request.views) }
      })

    /**
     * Deletes the model `id` of `accountIds` (404 naming it when none), in one transaction holding
     * its row; a model that still has deployments is kept (409: delete them first).
     */
    const remove = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<void, NotFound | Conflict> =>
      documents.transaction(
        Effect.gen(function*() {
          yield* documents.get(id, accountIds)
          const count = (yield* countsOf([id])).get(id) ?? 0
          if (count > 0) {
            return yield* Effect.fail(
              new Conflict({ detail: `Model ${id} has ${count} deployment${count === 1 ? "" : "s"}: delete them first` })
            )
          }
          yield* Effect.orDie(sql`DELETE FROM model_instances WHERE id = ${id}`)
        })
      )

    /** Whether the model `id` exists in `accountIds`. */
    const exists = (id: string, accountIds: ReadonlyArray<string>) => Effect.map(documents.findById(id, accountIds), Option.isSome)

    /**
     * Registers the model a fine-tuning job made (id `modelId`, in the job's account, made by the
     * job's creator), unless a model of that id exists already (in any account): of the base model's type when the
     * base model is registered in the account, else `CHAT_COMPLETION`. Runs inside the transaction
     * that completes the job.
     */
    const registerFineTuned = (job: FineTuningJob, modelId: string, now: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        // an id taken already (in any account: ids are the table's key) is left as it is
        const taken = yield* Effect.orDie(sql<{ id: string }>`SELECT id FROM model_instances WHERE id = ${modelId}`)
        if (taken.length > 0) return
        const base = job.base_model_id === null ? Option.none() : yield* documents.findById(job.base_model_id, [job.account_id])
        yield* documents.insert(
          new StoredModelInstance({
            id: modelId,
            name: `${Option.match(base, { onNone: () => job.base_model_id ?? "model", onSome: (model) => model.name })} fine-tuned by ${job.id}`,
            model_type: Option.match(base, { onNone: () => "CHAT_COMPLETION" as const, onSome: (model) => model.model_type }),
            base_model_id: job.base_model_id,
            base_model_metadata: null,
            description: `Fine-tuned by job ${job.id} on training dataset ${job.training_dataset_id}`,
            display_name: null,
            model_card: null,
            model_creation_parameters: Option.match(base, { onNone: () => null, onSome: (model) => model.model_creation_parameters }),
            model_group_id: Option.match(base, { onNone: () => null, onSome: (model) => model.model_group_id }),
            model_template_id: null,
            model_vendor: Option.match(base, { onNone: () => null, onSome: (model) => model.model_vendor }),
            training_data_card: null,
            account_id: job.account_id,
            created_by_user_id: job.created_by_user_id,
            created_by_identity_type: job.created_by_identity_type,
            created_at: now
          })
        )
      })

    /** The model of `accountIds` whose id or name is `value` (by name: the newest). */
    const findByIdOrName = (value: string, accountIds: ReadonlyArray<string>): Effect.Effect<Option.Option<StoredModelInstance>> =>
      Effect.flatMap(documents.findById(value, accountIds), (byId) =>
        Option.isSome(byId) ? Effect.succeed(byId) : Effect.map(
          documents.page({ accountIds, page: 1, limit: 1, where: [sql`name = ${value}`] }),
          (page) => Option.fromNullable(page.items[0])
        ))

    return { ...documents, present, presentOne, pageSorted, remove, exists, registerFineTuned, findByIdOrName } as const
  })
}) {}
