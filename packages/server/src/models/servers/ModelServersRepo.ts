import { SqlClient } from "@effect/sql"
import { Conflict, ModelServer } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { uniqueRefusedAs } from "../../sql/errors.js"
import { makeDocuments } from "../../sql/documents.js"
import { lockRow } from "../../sql/rowLock.js"

const columns = (server: ModelServer) => ({
  id: server.model_server_id,
  account_id: server.account_id,
  created_at: server.created_at,
  name: server.name,
  model_deployment_id: server.model_deployment_id,
  alias: server.alias
})

/** A model server's alias already in its account: 409. */
const aliasTakenAs = (alias: string | null) =>
  uniqueRefusedAs(
    { sqliteColumn: "model_servers.alias", postgresIndex: "model_servers_account_alias" },
    () => new Conflict({ detail: `A model server with alias ${alias} already exists` })
  )

export class ModelServersRepo extends Effect.Service<ModelServersRepo>()("@platform-kit/server/ModelServersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "model_servers",
      label: "Model server",
      schema: ModelServer,
      columns
    })
    const decode = Schema.decodeUnknownSync(Schema.parseJson(ModelServer))

    /** Stores `server`; 409 when its alias is already used in its account (a race included). */
    const insert = (server: ModelServer): Effect.Effect<ModelServer, Conflict> =>
      sql`INSERT INTO model_servers ${sql.insert(documents.record(server))}`.pipe(
        Effect.as(server),
        aliasTakenAs(server.alias)
      )

    /** The server with `alias` in one of `accountIds` (the oldest if several accounts use it). */
    const findByAlias = (alias: string, accountIds: ReadonlyArray<string>): Effect.Effect<Option.Option<ModelServer>> =>
      accountIds.length === 0
        ? Effect.succeedNone
        : sql<{ doc: string }>`SELECT doc FROM model_servers WHERE alias = ${alias} AND ${
          sql.in("account_id", accountIds)
        } ORDER BY created_at, id`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map((row) => decode(row.doc)))),
          Effect.orDie
        )

    /** How many servers serve the deployment `deploymentId`. */
    const servingCount = (deploymentId: string): Effect.Effect<number> =>
      Effect.map(
        Effect.orDie(sql<{ n: number }>`SELECT COUNT(*) AS n FROM model_servers WHERE model_deployment_id = ${deploymentId}`),
        (rows) => Number(rows[0]?.n ?? 0)
      )

    /** The deployments server `id` served before, oldest first (read inside the transaction that holds its row). */
    const historyOf = (id: string): Effect.Effect<ReadonlyArray<string>> =>
      Effect.map(
        Effect.orDie(sql<{ backend_history: string }>`SELECT backend_history FROM model_servers WHERE id = ${id}`),
        (rows) => JSON.parse(rows[0]?.backend_history ?? "[]") as ReadonlyArray<string>
      )

    /** Writes `server` (its deployment changed) and its history of earlier deployments. */
    const replaceBackend = (server: ModelServer, history: ReadonlyArray<string>): Effect.Effect<ModelServer> =>
      Effect.zipRight(
        documents.update(server),
        Effect.orDie(sql`UPDATE model_servers SET backend_history = ${JSON.stringify(history)} WHERE id = ${server.model_server_id}`)
      ).pipe(Effect.as(server))

    /** Locks server `id` of `accountIds` for the calling transaction. */
    const lock = (id: string, accountIds: ReadonlyArray<string>) => lockRow(sql, "model_servers", id, accountIds)

    return { ...documents, insert, findByAlias, servingCount, historyOf, replaceBackend, lock } as const
  })
}) {}
