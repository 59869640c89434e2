/**
 * Annotation tasks of v4 evaluations (docs/evaluations.md "Tasks"): one per test case result that
 * people annotate, PENDING until its result is COMPLETED. A claim hands the caller the next
 * pending task nobody holds (highest `priority`, then oldest) for `PLATFORM_EVALUATION_TASK_CLAIM_SECONDS`.
 *
 * Plain columns, not a document: a claim is one UPDATE of the task a subquery picks, re-checked by
 * its WHERE (`… WHERE id = (SELECT … LIMIT 1) AND nobody holds it RETURNING`), which two concurrent
 * claims cannot both win, on SQLite (one writer) as on PostgreSQL (the second UPDATE re-reads the
 * row the first committed and no longer matches; `SKIP LOCKED` makes it pick another row instead).
 * Times are ISO-8601 text, which compares in time order.
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Array as Arr, Config, Effect, Option } from "effect"
import { jsonFieldJson, jsonFieldText } from "../sql/dialect.js"
import { makeRead } from "../sql/reads.js"

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

    const read = yield* makeRead

    /**
     * The evaluation `evaluationId` of `accountIds` as a claim needs it: its account, and whether
     * people annotate it (`needsPeople` of ./EvaluationsV4Repo.ts: the type its update set, else its
     * config's, else whether it has an `annotation_config`); none when it is not there. One read of
     * three fields of its document and its config's, rather than both documents decoded at each claim.
     */
    const annotatedEvaluation = (
      evaluationId: string,
      accountIds: ReadonlyArray<string>
    ): Effect.Effect<Option.Option<{ readonly id: string; readonly account_id: string; readonly people: boolean }>> =>
      accountIds.length === 0 ? Effect.succeedNone : read(
        sql<{ account_id: string; own_type: string | null; annotation_config: string | null; config_type: string | null }>`SELECT e.account_id,
          ${jsonFieldText(sql, "e.doc", "evaluation_type")} AS own_type,
          ${jsonFieldJson(sql, "e.doc", "annotation_config")} AS annotation_config,
          ${jsonFieldText(sql, "c.doc", "evaluation_type")} AS config_type
          FROM evaluations_v4 e LEFT JOIN evaluation_configs c ON c.id = e.evaluation_config_id AND c.account_id = e.account_id
          WHERE e.id = ${evaluationId} AND ${sql.in("e.account_id", accountIds)}`
      ).pipe(
        Effect.orDie,
        Effect.map((rows) =>
          Option.map(Arr.head(rows), (row) => {
            const type = row.own_type ?? row.config_type
            const people = type === null
              ? row.annotation_config !== null && row.annotation_config !== "null"
              : type === "human" || type === "studio" || type === "llm_benchmark"
            return { id: evaluationId, account_id: row.account_id, people }
          })
        )
      )

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

    /** Held by `userId`: claimed by them and not lapsed. */
    const heldBy = (userId: string, now: string) => sql`(assigned_to = ${userId} AND assignment_expires_at > ${now})`
    /**
     * On PostgreSQL the first free task's row is locked as it is picked, and one another claim is
     * picking (locked) is passed over: concurrent claims take the next tasks instead of queueing on
     * one row and finding it taken. SQLite has one writer: a statement sees every claim before it.
     */
    const skipLocked = sql.literal(sql.onDialectOrElse({ pg: () => "FOR UPDATE SKIP LOCKED", orElse: () => "" }))
    /**
     * The tasks a person holds are found by the index of assignees: SQLite's planner would walk the
     * queue's index instead (it gives the ORDER BY), every pending task of the evaluation at each
     * claim. PostgreSQL's planner chooses by its statistics.
     */
    const byAssignee = sql.literal(sql.onDialectOrElse({ pg: () => "", orElse: () => "INDEXED BY evaluation_v4_tasks_assignee" }))
    const returning = sql.literal(
      "RETURNING id, account_id, evaluation_id, test_case_result_id, status, priority, assigned_to, assignment_expires_at, created_at, position"
    )

    /**
     * The task the caller should work on next, assigned to them until `expiresAt`: the one they
     * hold already (unless `skipCurrent`, which frees it and takes another), else the first free
     * pending task of the queue; none when the queue has none.
     *
     * One statement: an UPDATE of the task its subquery picks, whose WHERE checks again that the
     * task is pending and free (or the caller's), so that two claims never both win one task (on
     * PostgreSQL a claim that waited for another's row re-checks the row as that one left it, and
     * finds it taken). The queue's index (`evaluation_v4_tasks_claim`) hands the first free task
     * after the few that live claims hold, not a sort of the evaluation's tasks. A claim that won
     * nothing while a free task is still there (PostgreSQL: every free one was being picked by
     * another claim) tries again.
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
        const pending = sql`evaluation_id = ${evaluationId} AND status = 'PENDING'`
        const held = sql`SELECT id FROM evaluation_v4_tasks ${byAssignee} WHERE ${pending} AND ${heldBy(userId, now)}
          ORDER BY ${sql.literal(queueOrder)} LIMIT 1`
        let skipped: string | undefined
        if (options.skipCurrent) {
          const freed = yield* sql<{ id: string }>`UPDATE evaluation_v4_tasks SET assigned_to = NULL, assignment_expires_at = NULL
            WHERE id = (${held}) AND assigned_to = ${userId} RETURNING id`.pipe(Effect.orDie)
          skipped = freed[0]?.id
        }
        const freeNow = sql`${pending} AND ${free(now)}${skipped === undefined ? sql.literal("") : sql` AND id <> ${skipped}`}`
        const first = sql`SELECT id FROM evaluation_v4_tasks WHERE ${freeNow} ORDER BY ${sql.literal(queueOrder)} LIMIT 1 ${skipLocked}`
        // without skip_current the caller's own task comes first
        const picked = options.skipCurrent ? sql`(${first})` : sql`COALESCE((${held}), (${first}))`
        for (;;) {
          const won = yield* sql<TaskRow>`UPDATE evaluation_v4_tasks SET assigned_to = ${userId},
              assignment_expires_at = CASE WHEN ${heldBy(userId, now)} THEN assignment_expires_at ELSE ${expiresAt} END
            WHERE id = ${picked} AND status = 'PENDING' AND (${free(now)} OR ${heldBy(userId, now)}) ${returning}`.pipe(Effect.orDie)
          if (won.length > 0) return Option.some(normalized(won[0]!))
          const left = yield* sql<{ id: string }>`SELECT id FROM evaluation_v4_tasks WHERE ${freeNow} LIMIT 1`.pipe(Effect.orDie)
          if (left.length === 0) return Option.none()
          yield* Effect.yieldNow()
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

    return { annotatedEvaluation, insertAll, followResult, ofResults, get, claim, assign } as const
  })
}) {}
