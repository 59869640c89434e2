/**
 * A knowledge base's upload schedules: an upload of a data source every `interval` seconds, fired
 * on the engine (workflow.ts), with the runs it made.
 */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { GenericDeleteResponse, pageOf, UploadSchedule } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { accountsForRead, createdBy } from "../../auth/access.js"
import { Lifecycles } from "../../engine/Lifecycles.js"
import { freshIdentity, nowIso } from "../../platform/Ids.js"
import { ensureReference } from "../../sql/documents.js"
import { knowledgeBaseForRead, knowledgeBaseForWrite, notFound } from "../access.js"
import { dataSourceReference } from "../data-sources/DataSourcesRepo.js"
import { KnowledgeBasesRepo } from "../KnowledgeBasesRepo.js"
import { fires, UploadSchedulesRepo } from "./UploadSchedulesRepo.js"

/** A timestamp the caller sent, as the contract's UTC form. */
const utc = (iso: string) => new Date(iso).toISOString()

/** The last instant an ISO timestamp with a four-digit year can name. */
const lastIsoMillis = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * With no `next_run_at` given, the first automatic run is one `interval` (seconds) after creation;
 * none for interval 0, nor when that lies beyond the year 9999.
 */
const firstRun = (createdAt: string, interval: number) => {
  const at = Date.parse(createdAt) + interval * 1000
  return interval > 0 && at <= lastIsoMillis ? new Date(at).toISOString() : null
}

export const SchedulesHandlers = Effect.gen(function*() {
  const knowledgeBases = yield* KnowledgeBasesRepo
  const schedules = yield* UploadSchedulesRepo
  const lifecycles = yield* Lifecycles
  return {
    createUploadSchedule: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "createUploadSchedule", ({ path, payload }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, payload.account_id)
        yield* ensureReference({
          ...dataSourceReference,
          id: payload.knowledge_base_data_source_id,
          accountIds: [kb.account_id]
        })
        const [id, created_at] = yield* freshIdentity
        const next_run_at = payload.next_run_at !== undefined
          ? utc(payload.next_run_at)
          : firstRun(created_at, payload.interval)
        const created = yield* schedules.insert(
          new UploadSchedule({
            id,
            knowledge_base_id: kb.knowledge_base_id,
            knowledge_base_data_source_id: payload.knowledge_base_data_source_id,
            chunking_strategy_config: payload.chunking_strategy_config,
            status: "HEALTHY",
            status_reason: null,
            interval: payload.interval,
            next_run_at,
            account_id: kb.account_id,
            ...(yield* createdBy),
            created_at,
            updated_at: created_at
          }, true)
        )
        // its firings on the engine (workflow.ts), when it fires
        if (fires(created)) yield* lifecycles.start({ workflow: "UploadScheduleFiring", id, account_id: kb.account_id })
        return created
      })),
    getUploadSchedule: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "getUploadSchedule", ({ path }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
        const found = yield* schedules.findInKnowledgeBase(kb.knowledge_base_id, path.upload_schedule_id, [kb.account_id])
        return yield* Option.match(found, {
          onNone: () => Effect.fail(notFound("Upload schedule", path.upload_schedule_id)),
          onSome: Effect.succeed
        })
      })),
    updateUploadSchedule: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "updateUploadSchedule", ({ path, payload }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        const updated_at = yield* nowIso
        const { firing, schedule } = yield* schedules.modify(
          kb.knowledge_base_id,
          path.upload_schedule_id,
          [kb.account_id],
          notFound("Upload schedule", path.upload_schedule_id),
          (current) => {
            const interval = payload.interval ?? current.interval
            const next_run_at = payload.next_run_at !== undefined
              ? utc(payload.next_run_at)
              : payload.interval !== undefined
              ? (interval === 0 ? null : current.next_run_at ?? firstRun(updated_at, interval))
              : current.next_run_at
            // PAUSED stops it; HEALTHY resumes a paused (or failed) one; otherwise the status stays
            const status = payload.status ?? current.status
            return new UploadSchedule({
              ...current,
              chunking_strategy_config: payload.chunking_strategy_config ?? current.chunking_strategy_config,
              interval,
              next_run_at,
              status,
              status_reason: payload.status === "HEALTHY" ? null : current.status_reason,
              updated_at
            }, true)
          }
        )
        // replanned from the schedule as changed (a firing planned before does nothing)
        if (fires(schedule)) {
          yield* lifecycles.start({ workflow: "UploadScheduleFiring", id: schedule.id, account_id: schedule.account_id, run: firing })
        }
        return schedule
      })),
    deleteUploadSchedule: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "deleteUploadSchedule", ({ path }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        yield* schedules.remove(kb.knowledge_base_id, path.upload_schedule_id, [kb.account_id], notFound("Upload schedule", path.upload_schedule_id))
        return new GenericDeleteResponse({ count: 1, success: true })
      })),
    listUploadScheduleRuns: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "listUploadScheduleRuns", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const accountIds = yield* accountsForRead(urlParams.account_id)
        const kb = yield* knowledgeBases.get(path.knowledge_base_id, accountIds)
        const found = yield* schedules.findInKnowledgeBase(kb.knowledge_base_id, path.upload_schedule_id, [kb.account_id])
        if (Option.isNone(found)) return yield* Effect.fail(notFound("Upload schedule", path.upload_schedule_id))
        return yield* schedules.pageOfRuns(found.value.id, kb.account_id, pageOf(urlParams))
      })),
    listUploadSchedules: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "listUploadSchedules", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const accountIds = yield* accountsForRead(urlParams.account_id)
        const kb = yield* knowledgeBases.get(path.knowledge_base_id, accountIds)
        return yield* schedules.pageOfKnowledgeBase(kb.knowledge_base_id, kb.account_id, pageOf(urlParams))
      }))
  }
})
