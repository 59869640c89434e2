import { SqlClient } from "@effect/sql"
import { KnowledgeBaseConnection, KnowledgeBaseDataSource, type NotFound, UploadSchedule, UploadScheduleRun } from "@platform-kit/schema"
import { Clock, Effect, Option, Schema } from "effect"
import type { LifecycleEntity } from "../../engine/Lifecycles.js"
import { Ids } from "../../platform/Ids.js"
import { makeDocuments } from "../../sql/documents.js"
import { UploadIngestion } from "./ingestion.js"

/** Consecutive failed runs that move a schedule to ERROR (it stops firing); fewer make it UNHEALTHY. */
export const failuresToError = 3

/** The shortest time between two firings, whatever `interval` says (seconds). */
export const shortestPeriod = 1

/** Whether `schedule` fires by itself: an interval, a next run, and not paused or in error. */
export const fires = (schedule: UploadSchedule) =>
  schedule.interval > 0 && schedule.next_run_at !== null && (schedule.status === "HEALTHY" || schedule.status === "UNHEALTHY")

/**
 * The run after the one due at `dueMs`: one period later, or, when that has passed already (the
 * server was down), the first period boundary after `nowMs` (missed runs are not replayed).
 */
const nextAfter = (dueMs: number, interval: number, nowMs: number) => {
  const period = Math.max(interval, shortestPeriod) * 1000
  const next = dueMs + period
  return next > nowMs ? next : dueMs + Math.ceil((nowMs - dueMs) / period + 1e-9) * period
}

export class UploadSchedulesRepo extends Effect.Service<UploadSchedulesRepo>()(
  "@platform-kit/server/UploadSchedulesRepo",
  {
    effect: Effect.gen(function*() {
      const documents = yield* makeDocuments({
        table: "kb_upload_schedules",
        label: "Upload schedule",
        schema: UploadSchedule,
        columns: (schedule) => ({
          id: schedule.id,
          account_id: schedule.account_id,
          created_at: schedule.created_at,
          knowledge_base_id: schedule.knowledge_base_id,
          knowledge_base_data_source_id: schedule.knowledge_base_data_source_id,
          status: schedule.status
        })
      })
      const runs = yield* makeDocuments({
        table: "kb_upload_schedule_runs",
        label: "Upload schedule run",
        schema: UploadScheduleRun,
        columns: (run) => ({
          id: run.id,
          account_id: run.account_id,
          created_at: run.created_at,
          upload_schedule_id: run.upload_schedule_id
        })
      })
      const sql = yield* SqlClient.SqlClient
      const decodeDataSource = Schema.decodeUnknownSync(Schema.parseJson(KnowledgeBaseDataSource))

      /** The schedule `id` of knowledge base `knowledgeBaseId`, if there is one. */
      const findInKnowledgeBase = (knowledgeBaseId: string, id: string, accountIds: ReadonlyArray<string>) =>
        documents.findById(id, accountIds).pipe(
          Effect.map(Option.filter((schedule) => schedule.knowledge_base_id === knowledgeBaseId))
        )

      /**
       * The connections of each knowledge base: every data source one of its upload schedules or
       * uploads names (once, in the order first connected), with the time an artifact of that
       * data source was last registered on the knowledge base.
       */
      const connections = (knowledgeBaseIds: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const out = new Map<string, Array<KnowledgeBaseConnection>>(knowledgeBaseIds.map((id) => [id, []]))
          if (knowledgeBaseIds.length === 0) return out
          const rows = yield* sql<{
            knowledge_base_id: string
            doc: string
            last_uploaded_at: string | null
          }>`SELECT c.knowledge_base_id, d.doc, u.last_uploaded_at
FROM (
  SELECT knowledge_base_id, knowledge_base_data_source_id, MIN(connected_at) AS connected_at FROM (
    SELECT knowledge_base_id, knowledge_base_data_source_id, created_at AS connected_at
    FROM kb_upload_schedules WHERE ${sql.in("knowledge_base_id", knowledgeBaseIds)}
    UNION ALL
    SELECT knowledge_base_id, data_source_id, created_at
    FROM kb_uploads WHERE ${sql.in("knowledge_base_id", knowledgeBaseIds)} AND data_source_id IS NOT NULL
  ) named
  GROUP BY knowledge_base_id, knowledge_base_data_source_id
) c
JOIN knowledge_base_data_sources d ON d.id = c.knowledge_base_data_source_id
LEFT JOIN (
  SELECT knowledge_base_id, knowledge_base_data_source_id, MAX(created_at) AS last_uploaded_at
  FROM kb_artifacts WHERE ${sql.in("knowledge_base_id", knowledgeBaseIds)}
  GROUP BY knowledge_base_id, knowledge_base_data_source_id
) u ON u.knowledge_base_id = c.knowledge_base_id AND u.knowledge_base_data_source_id = c.knowledge_base_data_source_id
ORDER BY c.connected_at, d.id`
          for (const row of rows) {
            out.get(row.knowledge_base_id)?.push(
              new KnowledgeBaseConnection({
                last_uploaded_at: row.last_uploaded_at,
                deletion_status: null,
                knowledge_base_data_source: decodeDataSource(row.doc)
              }, true)
            )
          }
          return out
        }).pipe(Effect.orDie)

      /** One v4 page of the schedules of knowledge base `knowledgeBaseId` (in `accountId`). */
      const pageOfKnowledgeBase = (knowledgeBaseId: string, accountId: string, page: { readonly page: number; readonly limit: number }) =>
        documents.page({ accountIds: [accountId], where: [sql`knowledge_base_id = ${knowledgeBaseId}`], ...page })

      /** The firing number of schedule `id` (the next firing's): read inside a transaction holding its row. */
      const firingOf = (id: string) =>
        Effect.map(
          Effect.orDie(sql<{ firing: number }>`SELECT firing FROM kb_upload_schedules WHERE id = ${id}`),
          (rows) => Number(rows[0]?.firing ?? 0)
        )

      /**
       * Writes what `change` makes of the schedule `id` of knowledge base `knowledgeBaseId` (404
       * naming it when none), in one transaction holding its row, and moves its firing number on:
       * a firing planned before the change does nothing. Answers the schedule and the number of
       * the firing to start.
       */
      const modify = (
        knowledgeBaseId: string,
        id: string,
        accountIds: ReadonlyArray<string>,
        notFound: NotFound,
        change: (current: UploadSchedule) => UploadSchedule
      ): Effect.Effect<{ readonly schedule: UploadSchedule; readonly firing: number }, NotFound> =>
        documents.transaction(
          Effect.gen(function*() {
            const found = yield* findInKnowledgeBase(knowledgeBaseId, id, accountIds)
            if (Option.isNone(found)) return yield* Effect.fail(notFound)
            const schedule = yield* documents.update(change(found.value))
            const firing = (yield* firingOf(id)) + 1
            // resumed (to HEALTHY from another status): its failures count afresh
            const resumed = schedule.status === "HEALTHY" && found.value.status !== "HEALTHY"
            yield* Effect.orDie(
              resumed
                ? sql`UPDATE kb_upload_schedules SET firing = ${firing}, failures = 0 WHERE id = ${id}`
                : sql`UPDATE kb_upload_schedules SET firing = ${firing} WHERE id = ${id}`
            )
            return { schedule, firing }
          })
        )

      /** The schedule of a firing, if that firing is still the schedule's next and the schedule fires. */
      const current = (firing: LifecycleEntity) =>
        Effect.gen(function*() {
          const found = yield* documents.findById(firing.id, [firing.account_id])
          if (Option.isNone(found) || !fires(found.value)) return Option.none<UploadSchedule>()
          return (yield* firingOf(firing.id)) === (firing.run ?? 0) ? found : Option.none<UploadSchedule>()
        })

      /**
       * Whether this firing ran already (its step repeated after the process died past its
       * commit) and the schedule fires on: the next firing is then to be started (again: a start
       * of one already started does nothing), or the schedule would stop.
       */
      const firedAlready = (firing: LifecycleEntity) =>
        Effect.gen(function*() {
          const found = yield* documents.findById(firing.id, [firing.account_id])
          return Option.isSome(found) && fires(found.value) && (yield* firingOf(firing.id)) === (firing.run ?? 0) + 1
        })

      /** When the firing is due (`next_run_at`), or null when it is no longer to happen. */
      const dueAt = (firing: LifecycleEntity): Effect.Effect<string | null> =>
        Effect.map(current(firing), Option.match({ onNone: () => null, onSome: (schedule) => schedule.next_run_at }))

      /**
       * Runs the firing: the ingestion step, then, in one transaction holding the schedule's row
       * and if the firing is still its next, the run recorded, the schedule's status from the
       * outcome (HEALTHY; UNHEALTHY after a failure; ERROR after `failuresToError` in a row), its
       * `next_run_at` one period on and its firing number moved on. Answers whether the schedule
       * fires again (the next firing to start).
       */
      const fire = (firing: LifecycleEntity): Effect.Effect<boolean, never, UploadIngestion | Ids> =>
        Effect.gen(function*() {
          const before = yield* current(firing)
          if (Option.isNone(before)) return yield* firedAlready(firing)
          const ingestion = yield* UploadIngestion
          const outcome = yield* Effect.either(ingestion.run(before.value, firing.run ?? 0))
          const runId = yield* Effect.flatMap(Ids, (ids) => ids.make)
          return yield* documents.transaction(Effect.gen(function*() {
            const found = yield* current(firing)
            if (Option.isNone(found)) return yield* firedAlready(firing)
            const schedule = found.value
            const nowMs = yield* Clock.currentTimeMillis
            const now = new Date(nowMs).toISOString()
            const failed = outcome._tag === "Left"
            yield* runs.insert(
              new UploadScheduleRun({
                id: runId,
                upload_schedule_id: schedule.id,
                knowledge_base_id: schedule.knowledge_base_id,
                knowledge_base_data_source_id: schedule.knowledge_base_data_source_id,
                scheduled_at: schedule.next_run_at!,
                created_at: now,
                status: failed ? "FAILED" : "COMPLETED",
                status_reason: outcome._tag === "Left" ? outcome.left : outcome.right,
                account_id: schedule.account_id
              })
            )
            // the failures in a row, this one included (since the last success or resume)
            const failures = failed
              ? 1 + Number((yield* Effect.orDie(sql<{ failures: number }>`SELECT failures FROM kb_upload_schedules WHERE id = ${schedule.id}`))[0]?.failures ?? 0)
              : 0
            const status = !failed ? "HEALTHY" : failures >= failuresToError ? "ERROR" : "UNHEALTHY"
            const next = new UploadSchedule({
              ...schedule,
              status,
              status_reason: outcome._tag === "Left" ? outcome.left : null,
              next_run_at: new Date(nextAfter(Date.parse(schedule.next_run_at!), schedule.interval, nowMs)).toISOString(),
              updated_at: now
            }, true)
            yield* documents.update(next)
            yield* Effect.orDie(sql`UPDATE kb_upload_schedules SET firing = ${(firing.run ?? 0) + 1}, failures = ${failures} WHERE id = ${schedule.id}`)
            return fires(next)
          }))
        })

      /** One v4 page of the runs of schedule `scheduleId` (in `accountId`), newest first. */
      const pageOfRuns = (scheduleId: string, accountId: string, page: { readonly page: number; readonly limit: number }) =>
        runs.page({ accountIds: [accountId], where: [sql`upload_schedule_id = ${scheduleId}`], ...page })

      /** Deletes the schedule `id` of knowledge base `knowledgeBaseId` and its runs (404 naming it when none). */
      const remove = (knowledgeBaseId: string, id: string, accountIds: ReadonlyArray<string>, notFound: NotFound) =>
        documents.transaction(
          Effect.gen(function*() {
            const found = yield* findInKnowledgeBase(knowledgeBaseId, id, accountIds)
            if (Option.isNone(found)) return yield* Effect.fail(notFound)
            yield* Effect.orDie(sql`DELETE FROM kb_upload_schedule_runs WHERE upload_schedule_id = ${id}`)
            yield* Effect.orDie(sql`DELETE FROM kb_upload_schedules WHERE id = ${id}`)
          })
        )

      /**
       * Deletes the schedules of knowledge base `knowledgeBaseId` (of data source `dataSourceId`
       * only, when given), or of every base naming data source `dataSourceId` (no base given), with
       * their runs; answers how many.
       */
      const removeOf = (knowledgeBaseId: string | undefined, dataSourceId?: string) =>
        Effect.gen(function*() {
          const where = sql.and([
            ...(knowledgeBaseId === undefined ? [] : [sql`knowledge_base_id = ${knowledgeBaseId}`]),
            ...(dataSourceId === undefined ? [] : [sql`knowledge_base_data_source_id = ${dataSourceId}`])
          ])
          const ids = (yield* sql<{ id: string }>`SELECT id FROM kb_upload_schedules WHERE ${where}`).map((row) => row.id)
          if (ids.length === 0) return 0
          yield* sql`DELETE FROM kb_upload_schedule_runs WHERE ${sql.in("upload_schedule_id", ids)}`
          yield* sql`DELETE FROM kb_upload_schedules WHERE ${sql.in("id", ids)}`
          return ids.length
        }).pipe(Effect.orDie)

      /** Every schedule that fires, with its next firing: what the engine makes sure of when it starts. */
      const active: Effect.Effect<ReadonlyArray<LifecycleEntity>> = sql<{ id: string; account_id: string; run: number }>`
        SELECT id, account_id, firing AS run FROM kb_upload_schedules WHERE ${sql.in("status", ["HEALTHY", "UNHEALTHY"])}
        ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map((row) => ({ id: row.id, account_id: row.account_id, run: Number(row.run) }))),
        Effect.orDie
      )

      return {
        ...documents,
        findInKnowledgeBase,
        pageOfKnowledgeBase,
        connections,
        modify,
        dueAt,
        fire,
        pageOfRuns,
        remove,
        removeOf,
        active
      } as const
    })
  }
) {}
