import { SqlClient } from "@effect/sql"
import type { NotFound } from "@platform-kit/schema"
import { ApplicationDeployment } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import type { LifecycleEntity } from "../engine/Lifecycles.js"
import { makeDocuments } from "../sql/documents.js"

type Status = ApplicationDeployment["status"]

export class DeploymentsRepo extends Effect.Service<DeploymentsRepo>()("@platform-kit/server/DeploymentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "application_deployments",
      label: "Application deployment",
      schema: ApplicationDeployment,
      columns: (deployment) => ({
        id: deployment.id,
        account_id: deployment.account_id,
        created_at: deployment.created_at,
        status: deployment.status
      })
    })

    /** The activation of the deployment `id` (0 until it is deployed again): read inside a transaction holding its row. */
    const activationOf = (id: string) =>
      Effect.map(
        Effect.orDie(sql<{ activation: number }>`SELECT activation FROM application_deployments WHERE id = ${id}`),
        (rows) => Number(rows[0]?.activation ?? 0)
      )

    /**
     * Moves the deployment of a lifecycle's run to the status `next` gives, in one transaction
     * holding its row, if it is `PENDING` in that run's activation; nothing otherwise (a step run
     * again finds it moved; a step of an activation since replaced, or of a deployment stopped
     * meanwhile, finds it elsewhere).
     */
    const settle = (run: LifecycleEntity, next: (current: ApplicationDeployment) => Status) =>
      documents.transaction(
        Effect.gen(function*() {
          const found = yield* documents.findById(run.id, [run.account_id])
          if (Option.isNone(found) || found.value.status !== "PENDING") return
          if ((yield* activationOf(run.id)) !== (run.run ?? 0)) return
          yield* documents.update(new ApplicationDeployment({ ...found.value, status: next(found.value) }))
        })
      )

    /**
     * Writes what `change` makes of the deployment `id` of `accountIds` (404 naming it when none),
     * in one transaction holding its row. When `change` asks for a new activation, the
     * deployment's activation count goes up by one: the run of the lifecycle to start is answered
     * with the deployment.
     */
    const modify = (
      id: string,
      accountIds: ReadonlyArray<string>,
      change: (current: ApplicationDeployment) => { readonly next: ApplicationDeployment; readonly activate: boolean }
    ): Effect.Effect<{ readonly deployment: ApplicationDeployment; readonly run: Option.Option<number> }, NotFound> =>
      documents.transaction(
        Effect.gen(function*() {
          const current = yield* documents.get(id, accountIds)
          const { activate, next } = change(current)
          yield* documents.update(next)
          if (!activate) return { deployment: next, run: Option.none() }
          const run = (yield* activationOf(id)) + 1
          yield* Effect.orDie(sql`UPDATE application_deployments SET activation = ${run} WHERE id = ${id}`)
          return { deployment: next, run: Option.some(run) }
        })
      )

    /**
     * Every deployment of every account still `PENDING`, with the run of its lifecycle: the
     * lifecycles to make sure of when the engine starts (one accepted just before a crash, before
     * its workflow was stored). Read once per start, by the status index.
     */
    const pending: Effect.Effect<ReadonlyArray<LifecycleEntity>> = sql<{ id: string; account_id: string; run: number }>`
      SELECT id, account_id, activation AS run FROM application_deployments WHERE status = ${"PENDING"} ORDER BY created_at, id`
      .pipe(
        Effect.map((rows) => rows.map((row) => ({ id: row.id, account_id: row.account_id, run: Number(row.run) }))),
        Effect.orDie
      )

    return { ...documents, settle, modify, pending } as const
  })
}) {}
