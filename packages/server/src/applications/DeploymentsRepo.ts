import { SqlClient } from "@effect/sql"
import { ApplicationDeployment } from "@platform-kit/schema"
import { Effect, Option } from "effect"
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
        created_at: deployment.created_at
      })
    })

    /**
     * Moves the deployment `id` of `accountId` to the status `next` gives, in one transaction
     * holding its row, if it is in `from` now; nothing otherwise (a step run again finds it moved).
     */
    const move = (id: string, accountId: string, from: Status, next: (current: ApplicationDeployment) => Status) =>
      documents.transaction(
        Effect.flatMap(documents.findById(id, [accountId]), (found) =>
          Option.isSome(found) && found.value.status === from
            ? documents.update(new ApplicationDeployment({ ...found.value, status: next(found.value) }))
            : Effect.void)
      ).pipe(Effect.asVoid)

    /**
     * Every deployment of every account still `PENDING`: the lifecycles to make sure of when the
     * engine starts (one accepted just before a crash, before its workflow was stored). Read once
     * per start, from the documents (the status has no column of its own).
     */
    const pending: Effect.Effect<ReadonlyArray<{ readonly id: string; readonly account_id: string }>> = sql<
      { id: string; account_id: string }
    >`SELECT id, account_id FROM application_deployments WHERE CAST(doc AS TEXT) LIKE ${"%\"status\":\"PENDING\"%"} ORDER BY created_at, id`
      .pipe(Effect.orDie)

    return { ...documents, move, pending } as const
  })
}) {}
