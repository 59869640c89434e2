import { SqlClient } from "@effect/sql"
import { ModelDeployment } from "@platform-kit/schema"
import type { ModelDeploymentSortKey, NotFound } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import type { LifecycleEntity } from "../../engine/Lifecycles.js"
import { makeCommittedMemo } from "../../sql/reads.js"
import { makeDocuments } from "../../sql/documents.js"
import { deploymentOrderBy } from "../sortOrder.js"

/** An object field as the text its sort column holds: its JSON, or NULL when absent. */
const jsonText = (value: object | null) => (value === null ? null : JSON.stringify(value))

export class ModelDeploymentsRepo extends Effect.Service<ModelDeploymentsRepo>()(
  "@platform-kit/server/ModelDeploymentsRepo",
  {
    effect: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const documents = yield* makeDocuments({
      table: "model_deployments",
      label: "Model deployment",
      schema: ModelDeployment,
      columns: (deployment) => ({
        id: deployment.id,
        account_id: deployment.account_id,
        created_at: deployment.created_at,
        name: deployment.name,
        status: deployment.status,
        model_creation_parameters: jsonText(deployment.model_creation_parameters),
        model_endpoint_id: deployment.model_endpoint_id,
        model_instance_id: deployment.model_instance_id,
        vendor_configuration: jsonText(deployment.vendor_configuration),
        deployment_metadata: jsonText(deployment.deployment_metadata),
        created_by_user_id: deployment.created_by_user_id,
        created_by_identity_type: deployment.created_by_identity_type
      })
    })

      /**
       * One v4 page of the deployments of `accountIds` (of model `modelInstanceId` when given),
       * sorted by the `sortBy` keys in order, then newest first.
       */
      const pageSorted = (request: {
        readonly accountIds: ReadonlyArray<string>
        readonly page: number
        readonly limit: number
        readonly sortBy: ReadonlyArray<ModelDeploymentSortKey>
        readonly modelInstanceId?: string | undefined
      }) =>
        documents.page({
          accountIds: request.accountIds,
          page: request.page,
          limit: request.limit,
          where: request.modelInstanceId === undefined ? [] : [sql`model_instance_id = ${request.modelInstanceId}`],
          orderBy: deploymentOrderBy(sql, request.sortBy)
        })

      /**
       * Moves the deployment of a lifecycle as `change` says, in one transaction holding its row,
       * if its status is `from` now; nothing otherwise (a step run again finds it moved).
       */
      const advance = <R>(
        entity: LifecycleEntity,
        from: string,
        change: (current: ModelDeployment) => Effect.Effect<ModelDeployment, never, R>
      ) =>
        documents.transaction(
          Effect.gen(function*() {
            const found = yield* documents.findById(entity.id, [entity.account_id])
            if (Option.isNone(found) || found.value.status !== from) return
            yield* documents.update(yield* change(found.value))
          })
        )

      /** Every deployment of every account still `PENDING`: the lifecycles to make sure of when the engine starts. */
      const pending: Effect.Effect<ReadonlyArray<LifecycleEntity>> = sql<{ id: string; account_id: string }>`
        SELECT id, account_id FROM model_deployments WHERE status = ${"PENDING"} ORDER BY created_at, id`.pipe(Effect.orDie)

      /** Deletes the deployment `id` (its existence checked by the caller). */
      const remove = (id: string): Effect.Effect<void> => Effect.orDie(sql`DELETE FROM model_deployments WHERE id = ${id}`)

      /** The newest READY deployment of model `modelId` in `accountIds`. */
      const newestReadyOf = (modelId: string, accountIds: ReadonlyArray<string>) =>
        Effect.map(
          documents.page({
            accountIds,
            page: 1,
            limit: 1,
            where: [sql`model_instance_id = ${modelId}`, sql`status = ${"READY"}`]
          }),
          (page) => Option.fromNullable(page.items[0])
        )

      // the deployments executions read, kept until the next commit (of any write, by this process
      // or another): a model call reads its deployment's row and decodes it only after a change
      const committed = yield* makeCommittedMemo<ModelDeployment>(1_000)

      /**
       * The deployment `id` in `accountIds` as last committed (else 404): `get` for the execution
       * path. The key is JSON (an id is any string a path gives, NUL included: joined with a
       * separator, an id and a list of accounts could spell another caller's key), and what it
       * answers is checked against the request as well.
       */
      const getCommitted = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<ModelDeployment, NotFound> =>
        Effect.flatMap(
          committed(JSON.stringify([id, accountIds]), () => documents.get(id, accountIds)),
          (deployment) =>
            deployment.id === id && accountIds.includes(deployment.account_id) ? Effect.succeed(deployment) : documents.get(id, accountIds)
        )

      return { ...documents, pageSorted, advance, pending, remove, newestReadyOf, getCommitted } as const
    })
  }
) {}
