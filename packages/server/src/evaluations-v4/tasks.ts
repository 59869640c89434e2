/**
 * Annotation tasks of v4 evaluations (docs/evaluations.md "Tasks"): one per test case result that
 * people annotate, PENDING until its result is COMPLETED. A claim hands the caller the next
 * pending task nobody holds (highest `priority`, then oldest) for `PLATFORM_EVALUATION_TASK_CLAIM_SECONDS`.
 *
 * Plain columns, not a document: a claim is a compare-and-set UPDATE (`… WHERE id = ? AND nobody
 * holds it RETURNING`), one statement that two concurrent claims cannot both win, on SQLite (one
 * writer) as on PostgreSQL (the second UPDATE re-reads the row the first committed and no longer
 * matches). Times are ISO-8601 text, which compares in time order.
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Array as Arr, Config, Effect, Option } from "effect"

/** How long a claim holds a task, in seconds (default 30 minutes). */
export const TaskClaimSeconds = Config.integer("PLATFORM_EVALUATION_TASK_CLAIM_SECONDS").pipe(
  Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }),
  Config.withDefault(1800)
)

/** Every task has this priority today (nothing in the API sets one): the queue is oldest first. */
export const defaultTaskPriority = 1

export interface TaskRow {
  readonly id: string
  readonly account_id: string
  readonly evaluation_id: string
  readonly test_case_result_id: string
  readonly status: "PENDING" | "COMPLETED"
  readonly priority: number
  readonly assigned_to: string | null
  readonly assignment_expires_at: string | null
  readonly created_at: string
  /** its result's `position`: the queue's order after the priority */
  readonly position: number
}

/** The order of the queue: highest priority first, then the oldest (the first result written). */
const queueOrder = "priority DESC, position ASC, id ASC"

export class AnnotationTasks extends Effect.Service<AnnotationTasks>()("@platform-kit/server/EvaluationAnnotationTasks", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const select = (where: Statement.Fragment) =>
      sql<TaskRow>`SELECT id, account_id, evaluation_id, test_case_result_id, status, priority, assigned_to, assignment_expires_at, created_at, position
        FROM evaluation_v4_tasks WHERE ${where}`.pipe(Effect.orDie, Effect.map((rows) => rows.map(normalized)))
    const normalized = (row: TaskRow): TaskRow => ({ ...row, priority: Number(row.priority), position: Number(row.position) })
    /** Nobody holds it: never claimed, freed, or its claim lapsed. */
    const free = (now: string) => sql`(assigned_to IS NULL OR assignment_expires_at IS NULL OR assignment_expires_at <= ${now})`

    /** Stores new tasks (inside the caller's transaction). */
    const insertAll = (rows: ReadonlyArray<TaskRow>) =>
      rows.length === 0
        ? Effect.void
        : Effect.forEach(Arr.chunksOf(rows, 500), (chunk) => sql`INSERT INTO evaluation_v4_tasks ${sql.insert(chunk.map((row) => ({ ...row })))}`, {
          discard: true
        }).pipe(Effect.orDie)

    /** The task follows its result: COMPLETED when the result is, else PENDING. */
    const followResult = (resultId: string, labelStatus: string) =>
      sql`UPDATE evaluation_v4_tasks SET status = ${labelStatus === "COMPLETED" ? "COMPLETED" : "PENDING"}
        WHERE test_case_result_id = ${resultId}`.pipe(Effect.orDie, Effect.asVoid)

    const ofResults = (resultIds: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, TaskRow>> =>
      resultIds.length === 0
        ? Effect.succeed(new Map())
        : Effect.map(select(sql.in("test_case_result_id", resultIds)), (rows) => new Map(rows.map((row) => [row.test_case_result_id, row])))

    const get = (evaluationId: string, taskId: string): Effect.Effect<Option.Option<TaskRow>> =>
      Effect.map(select(sql`id = ${taskId} AND evaluation_id = ${evaluationId}`), Arr.head)

    /**
     * The task the caller should work on next, assigned to them until `expiresAt`: the one they
     * hold already (unless `skipCurrent`, which frees it and takes another), else the first free
     * pending task of the queue, won by a compare-and-set; none when the queue has none.
     */
    const claim = (options: {
      readonly evaluationId: string
      readonly userId: string
      readonly skipCurrent: boolean
      readonly now: string
      readonly expiresAt: string
    }): Effect.Effect<Option.Option<TaskRow>> =>
      Effect.gen(function*() {
        const { evaluationId, expiresAt, now, userId } = options
        const held = yield* select(
          sql`evaluation_id = ${evaluationId} AND status = 'PENDING' AND assigned_to = ${userId} AND assignment_expires_at > ${now}
            ORDER BY ${sql.literal(queueOrder)} LIMIT 1`
        )
        if (held.length > 0 && !options.skipCurrent) return Option.some(held[0]!)
        const skipped = held[0]?.id
        if (skipped !== undefined) {
          yield* sql`UPDATE evaluation_v4_tasks SET assigned_to = NULL, assignment_expires_at = NULL
            WHERE id = ${skipped} AND assigned_to = ${userId}`.pipe(Effect.orDie)
        }
        // a few candidates at a time: one another claim took in between is passed over
        for (;;) {
          const candidates = yield* select(
            sql`evaluation_id = ${evaluationId} AND status = 'PENDING' AND ${free(now)}${
              skipped === undefined ? sql.literal("") : sql` AND id <> ${skipped}`
            } ORDER BY ${sql.literal(queueOrder)} LIMIT 8`
          )
          if (candidates.length === 0) return Option.none()
          for (const candidate of candidates) {
            const won = yield* sql<TaskRow>`UPDATE evaluation_v4_tasks SET assigned_to = ${userId}, assignment_expires_at = ${expiresAt}
              WHERE id = ${candidate.id} AND status = 'PENDING' AND ${free(now)}
              RETURNING id, account_id, evaluation_id, test_case_result_id, status, priority, assigned_to, assignment_expires_at, created_at, position`
              .pipe(Effect.orDie)
            if (won.length > 0) return Option.some(normalized(won[0]!))
          }
        }
      })

    /** Assigns the task to `userId` until `expiresAt`, or frees it (`null`); none when the evaluation has no such task. */
    const assign = (evaluationId: string, taskId: string, userId: string | null, expiresAt: string | null) =>
      Effect.gen(function*() {
        const rows = yield* sql<TaskRow>`UPDATE evaluation_v4_tasks SET assigned_to = ${userId}, assignment_expires_at = ${expiresAt}
          WHERE id = ${taskId} AND evaluation_id = ${evaluationId}
          RETURNING id, account_id, evaluation_id, test_case_result_id, status, priority, assigned_to, assignment_expires_at, created_at, position`
          .pipe(Effect.orDie)
        return Option.map(Arr.head(rows), normalized)
      })

    return { insertAll, followResult, ofResults, get, claim, assign } as const
  })
}) {}
