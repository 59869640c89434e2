import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { AgentRuntimeDeployment, type AgentRuntimeDeploymentStatus, type NotFound } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import type { LifecycleEntity } from "../engine/Lifecycles.js"
import { nowIso } from "../platform/Ids.js"
import { makeDocuments } from "../sql/documents.js"
import { deletedEvent, supersededEvent } from "./deployEvents.js"

/** The statuses a newer deployment of the same preview label supersedes. */
const live: ReadonlyArray<AgentRuntimeDeploymentStatus> = ["PENDING", "DEPLOYING", "READY"]

export class AgentRuntimeRepo extends Effect.Service<AgentRuntimeRepo>()("@platform-kit/server/AgentRuntimeRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "agent_runtime_deployments",
      label: "Agent runtime deployment",
      schema: AgentRuntimeDeployment,
      columns: (deployment) => ({
        id: deployment.id,
        account_id: deployment.account_id,
        created_at: deployment.created_at,
        build_id: deployment.build_id,
        // the column is NOT NULL (and sorts the same on both dialects): no agent name is stored as ''
        agent_name: deployment.agent_name ?? "",
        preview_label: deployment.preview_label,
        status: deployment.status
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The list filters, each an exact match. */
    const filters = (query: {
      readonly build_id?: string | undefined
      readonly agent_name?: string | undefined
      readonly preview_label?: string | undefined
    }) => {
      const where: Array<Statement.Fragment> = []
      if (query.build_id !== undefined) where.push(sql`build_id = ${query.build_id}`)
      // an empty filter value matches nothing (it would otherwise match the deployments without a name)
      if (query.agent_name !== undefined) where.push(sql`agent_name = ${query.agent_name} AND agent_name <> ''`)
      if (query.preview_label !== undefined) where.push(sql`preview_label = ${query.preview_label}`)
      return where
    }

    /**
     * Moves the deployment of a lifecycle as `change` says (given the time), in one transaction
     * holding its row, if it is in `from` now; then answers the deployment as it is (none when
     * gone). A step run again, or one of a deployment deleted or superseded meanwhile, moves nothing.
     */
    const advance = (
      entity: LifecycleEntity,
      from: AgentRuntimeDeploymentStatus,
      change: (current: AgentRuntimeDeployment, now: string) => AgentRuntimeDeployment
    ): Effect.Effect<Option.Option<AgentRuntimeDeployment>> =>
      documents.transaction(
        Effect.gen(function*() {
          const found = yield* documents.findById(entity.id, [entity.account_id])
          if (Option.isNone(found) || found.value.status !== from) return found
          const next = change(found.value, yield* nowIso)
          yield* documents.update(next)
          if (next.status === "READY") yield* supersedeOlder(next)
          return Option.some(next)
        })
      )

    /**
     * Every deployment of `newer`'s account and preview label created before it, and still
     * pending, deploying or ready, becomes `SUPERSEDED` (in the caller's transaction).
     */
    const supersedeOlder = (newer: AgentRuntimeDeployment) =>
      Effect.gen(function*() {
        if (newer.preview_label === null) return
        const now = yield* nowIso
        const older = yield* documents.findAll([newer.account_id], [
          sql`preview_label = ${newer.preview_label}`,
          sql.in("status", live),
          sql`(created_at < ${newer.created_at} OR (created_at = ${newer.created_at} AND id < ${newer.id}))`
        ])
        for (const deployment of older) {
          yield* documents.update(
            new AgentRuntimeDeployment({
              ...deployment,
              status: "SUPERSEDED",
              deploy_events: [...deployment.deploy_events, supersededEvent(newer.id, now)]
            }, true)
          )
        }
      })

    /**
     * Takes the deployment `id` of `accountIds` down (404 naming it when none): `DELETED`, with
     * its event, in one transaction holding its row; one deleted already is answered as it is.
     */
    const remove = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<AgentRuntimeDeployment, NotFound> =>
      documents.transaction(
        Effect.gen(function*() {
          const current = yield* documents.get(id, accountIds)
          if (current.status === "DELETED") return current
          const next = new AgentRuntimeDeployment({
            ...current,
            status: "DELETED",
            deploy_events: [...current.deploy_events, deletedEvent(yield* nowIso)]
          }, true)
          return yield* documents.update(next)
        })
      )

    /**
     * The deployments whose lifecycle has work left when the engine starts: pending or deploying,
     * or ready with an `expires_at` to wait for.
     */
    const unfinished: Effect.Effect<ReadonlyArray<LifecycleEntity>> = sql<{ id: string; account_id: string }>`
      SELECT id, account_id FROM agent_runtime_deployments
      WHERE ${sql.in("status", ["PENDING", "DEPLOYING"])}
        OR (status = ${"READY"} AND CAST(doc AS TEXT) NOT LIKE ${"%\"expires_at\":null%"})
      ORDER BY created_at, id`.pipe(Effect.orDie)

    return { ...documents, filters, advance, remove, unfinished } as const
  })
}) {}
