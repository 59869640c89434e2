/**
 * Model templates as stored (docs/model-templates.md): a document table, and what a delete must
 * know first (the models that name a template).
 */
import { SqlClient } from "@effect/sql"
import { Conflict, ModelTemplate, NotFound } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../../sql/documents.js"

export class ModelTemplatesRepo extends Effect.Service<ModelTemplatesRepo>()("@platform-kit/server/ModelTemplatesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "model_templates",
      label: "Model template",
      schema: ModelTemplate,
      columns: (template) => ({ id: template.id, account_id: template.account_id, created_at: template.created_at, name: template.name })
    })

    /** How many models name the template `id` (an indexed count, migration 0044). */
    const modelsNaming = (id: string) =>
      Effect.map(
        Effect.orDie(sql<{ n: number }>`SELECT COUNT(*) AS n FROM model_instances WHERE model_template_id = ${id}`),
        (rows) => Number(rows[0]?.n ?? 0)
      )

    /**
     * Deletes the template `id` of `accountIds` (404 naming it when none), in one transaction
     * holding its row (a model create naming it locks the same row: the two never interleave); a
     * template that models still name is kept (409).
     */
    const removeUnused = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<void, NotFound | Conflict> =>
      documents.transaction(
        Effect.gen(function*() {
          yield* documents.get(id, accountIds)
          const count = yield* modelsNaming(id)
          if (count > 0) {
            return yield* Effect.fail(
              new Conflict({
                detail: `Model template ${id} is named by ${count} model${count === 1 ? "" : "s"}: delete them or clear their model_template_id first`
              })
            )
          }
          yield* documents.remove(id)
        })
      )

    return { ...documents, modelsNaming, removeUnused } as const
  })
}) {}
