import { SqlClient } from "@effect/sql"
import { Evaluation, EvaluationTask, Id, NotFound } from "@platform-kit/schema"
import { SqlError } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Effect, Schema, Struct } from "effect"
import { makeDocuments } from "../sql/documents.js"
import { lockRow } from "../sql/rowLock.js"
import { containsPattern, likeEscape } from "../sql/like.js"

/**
 * An evaluation as stored: the resource with its tasks always (the `tasks` view only decides
 * whether they are answered), the account that owns it, which the v5 resource does not carry, and
 * the number of its current run (0 the first; a restore that resumes a stopped run counts one up:
 * evaluations/workflow.ts).
 */
export class StoredEvaluation extends Schema.Class<StoredEvaluation>("StoredEvaluation")({
  ...Struct.omit(Evaluation.fields, "tasks"),
  tasks: Schema.Array(EvaluationTask),
  account_id: Id,
  run: Schema.optionalWith(Schema.Int, { exact: true, default: () => 0 })
}) {}

/** The column a `sort_by` value keysets on: names sort case-insensitively. */
const sortColumn = { created_at: "created_at", name: "name_lower" } as const

export interface ListRequest {
  readonly accountIds: ReadonlyArray<string>
  readonly limit: number
  readonly sortBy: keyof typeof sortColumn
  readonly sortOrder: "asc" | "desc"
  readonly startingAfter?: string | undefined
  readonly endingBefore?: string | undefined
  readonly includeArchived?: boolean | undefined
  /** Case-insensitive substring of the name. */
  readonly name?: string | undefined
  /** Any of these tags, case-insensitively; empty means no tag filter. */
  readonly tags?: ReadonlyArray<string> | undefined
}

export class EvaluationsRepo extends Effect.Service<EvaluationsRepo>()("@platform-kit/server/EvaluationsRepo", {
  effect: Effect.gen(function*() {
    const docs = yield* makeDocuments({
      table: "evaluations",
      label: "Evaluation",
      schema: StoredEvaluation,
      columns: (evaluation) => ({
        id: evaluation.id,
        account_id: evaluation.account_id,
        created_at: evaluation.created_at,
        name_lower: evaluation.name.toLowerCase(),
        archived_at: evaluation.archived_at
      })
    })
    const sql = yield* SqlClient.SqlClient

    const insertTags = (evaluation: StoredEvaluation) => {
      const lowered = [...new Set(evaluation.tags.map((tag) => tag.toLowerCase()))]
      return lowered.length === 0
        ? Effect.void
        : Effect.asVoid(sql`INSERT INTO evaluation_tags ${
          sql.insert(lowered.map((tag_lower) => ({ evaluation_id: evaluation.id, tag_lower })))
        }`)
    }

    /** Stores a new evaluation and its tags, together. */
    const insert = (evaluation: StoredEvaluation) =>
      Effect.zipRight(docs.insert(evaluation), insertTags(evaluation)).pipe(
        sql.withTransaction,
        Effect.orDie,
        Effect.as(evaluation)
      )

    /** Stores a changed evaluation, and its tags again. */
    const update = (evaluation: StoredEvaluation) =>
      Effect.all([
        docs.update(evaluation),
        sql`DELETE FROM evaluation_tags WHERE evaluation_id = ${evaluation.id}`,
        insertTags(evaluation)
      ], { discard: true }).pipe(sql.withTransaction, Effect.orDie, Effect.as(evaluation))

    /** The evaluation with `id` in `accountIds`; an archived one is a 404 unless `includeArchived`. */
    const get = (id: string, accountIds: ReadonlyArray<string>, includeArchived: boolean) =>
      Effect.filterOrFail(
        docs.get(id, accountIds),
        (evaluation) => includeArchived || evaluation.archived_at === null,
        () => new NotFound({ detail: `Evaluation ${id} not found` })
      )

    /**
     * Runs `change` on the caller's evaluation (archived or not) in one transaction that first
     * takes the evaluation's row lock (`lockRow`), so that concurrent changes of one evaluation
     * apply one after the other, each starting from what the previous one wrote. A failure of
     * `change` writes nothing.
     */
    const modify = <E, R>(
      id: string,
      accountIds: ReadonlyArray<string>,
      change: (current: StoredEvaluation) => Effect.Effect<StoredEvaluation, E, R>
    ): Effect.Effect<StoredEvaluation, E | NotFound, R> =>
      Effect.gen(function*() {
        yield* lockRow(sql, "evaluations", id, accountIds)
        return yield* change(yield* get(id, accountIds, true))
      }).pipe(
        sql.withTransaction,
        Effect.catchAll((e) => (e instanceof SqlError.SqlError ? Effect.die(e) : Effect.fail(e)))
      )

    /** One v5 page of the evaluations matching the filters. */
    const list = (request: ListRequest) => {
      const where: Array<Statement.Fragment> = [...docs.unlessArchived(request.includeArchived)]
      if (request.name !== undefined && request.name.length > 0) {
        where.push(sql`name_lower LIKE ${containsPattern(request.name)} ${sql.literal(likeEscape)}`)
      }
      const tags = [...new Set((request.tags ?? []).map((tag) => tag.toLowerCase()))]
      if (tags.length > 0) {
        where.push(sql`id IN (SELECT evaluation_id FROM evaluation_tags WHERE ${sql.in("tag_lower", tags)})`)
      }
      return docs.cursorPage({
        accountIds: request.accountIds,
        limit: request.limit,
        sortBy: sortColumn[request.sortBy],
        sortOrder: request.sortOrder,
        startingAfter: request.startingAfter,
        endingBefore: request.endingBefore,
        where
      })
    }

    /** The `archived_at` of each of `ids` in `accountIds` (what their items are answered with). */
    const archivedAt = (ids: ReadonlyArray<string>, accountIds: ReadonlyArray<string>) =>
      ids.length === 0 || accountIds.length === 0
        ? Effect.succeed(new Map<string, string | null>())
        : sql<{ id: string; archived_at: string | null }>`SELECT id, archived_at FROM evaluations WHERE ${
          sql.and([sql.in("id", ids), sql.in("account_id", accountIds)])
        }`.pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.id, row.archived_at]))),
          Effect.orDie
        )

    return { insert, update, get, modify, list, archivedAt } as const
  })
}) {}
