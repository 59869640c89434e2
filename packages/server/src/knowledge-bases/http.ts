import { CurrentCaller, PlatformApi } from "@platform-kit/api"
import {
  GenericDeleteResponse,
  KnowledgeBaseArtifact,
  KnowledgeBaseDataSource,
  NotFound,
  pageOf,
  UploadSchedule
} from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { ensureReference } from "../sql/documents.js"
import { ArtifactsRepo } from "./ArtifactsRepo.js"
import { DataSourcesRepo, dataSourceReference } from "./DataSourcesRepo.js"
import { KnowledgeBasesRepo, StoredKnowledgeBase } from "./KnowledgeBasesRepo.js"
import { KnowledgeBaseViews } from "./KnowledgeBaseViews.js"
import { fires, UploadSchedulesRepo } from "./UploadSchedulesRepo.js"
import { group } from "../fast/implementations.js"

const notFound = (label: string, id: string) => new NotFound({ detail: `${label} ${id} not found` })

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

export const KnowledgeBasesLive = group(PlatformApi, "knowledgeBases", (handlers) =>
  Effect.gen(function*() {
    const knowledgeBases = yield* KnowledgeBasesRepo
    const dataSources = yield* DataSourcesRepo
    const schedules = yield* UploadSchedulesRepo
    const artifacts = yield* ArtifactsRepo
    const views = yield* KnowledgeBaseViews
    const lifecycles = yield* Lifecycles

    /**
     * The knowledge base a create under it writes to: in the named (or selected) account when
     * there is one (403 if not the caller's), else in any of the caller's accounts.
     */
    const knowledgeBaseForWrite = (knowledgeBaseId: string, accountId: string | undefined) =>
      Effect.gen(function*() {
        const caller = yield* CurrentCaller
        const accounts = accountId !== undefined || caller.selectedAccountId !== undefined
          ? [yield* accountForWrite(accountId)]
          : caller.accountIds
        return yield* knowledgeBases.get(knowledgeBaseId, accounts)
      })

    const knowledgeBaseForRead = (knowledgeBaseId: string) =>
      Effect.flatMap(callerAccounts, (accounts) => knowledgeBases.get(knowledgeBaseId, accounts))

    return handlers
      // knowledge bases ------------------------------------------------------------------------
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          if (payload.embedding_config.type === "models_api") {
            yield* ensureReference({
              table: "model_deployments",
              id: payload.embedding_config.model_deployment_id,
              accountIds: [account_id],
              label: "Model deployment"
            })
          }
          const [knowledge_base_id, created_at] = yield* freshIdentity
          const stored = yield* knowledgeBases.insert(
            new StoredKnowledgeBase({
              knowledge_base_id,
              vector_store_id: null,
              knowledge_base_name: payload.knowledge_base_name,
              embedding_config: payload.embedding_config.type === "models_api"
                ? payload.embedding_config
                : { ...payload.embedding_config, type: "base", embedding_model: payload.embedding_config.embedding_model ?? null },
              metadata: payload.metadata ?? null,
              index_backend: payload.index_backend ?? "BACKEND_A",
              cluster_status: "NOT_CLUSTERED",
              account_id,
              ...(yield* createdBy),
              created_at,
              updated_at: created_at
            })
          )
          return yield* views.presentOne(stored, [])
        }))
      .handle("get", ({ path, urlParams }) =>
        Effect.flatMap(knowledgeBaseForRead(path.knowledge_base_id), (stored) =>
          views.presentOne(stored, urlParams.view ?? [])))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const page = yield* knowledgeBases.page({ accountIds, ...pageOf(urlParams) })
          return { ...page, items: yield* views.present(page.items, urlParams.view ?? []) }
        }))
      // data sources ---------------------------------------------------------------------------
      .handle("createDataSource", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          const [id, created_at] = yield* freshIdentity
          return yield* dataSources.insert(
            new KnowledgeBaseDataSource({
              id,
              name: payload.name,
              description: payload.description ?? null,
              data_source_config: payload.data_source_config,
              tagging_information: payload.tagging_information ?? null,
              account_id,
              ...(yield* createdBy),
              created_at,
              updated_at: created_at
            })
          )
        }))
      .handle("getDataSource", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => dataSources.get(path.knowledge_base_data_source_id, accounts)))
      .handle("listDataSources", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          dataSources.page({ accountIds, ...pageOf(urlParams) })))
      // upload schedules -----------------------------------------------------------------------
      .handle("createUploadSchedule", ({ path, payload }) =>
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
            })
          )
          // its firings on the engine (knowledge-bases/workflow.ts), when it fires
          if (fires(created)) yield* lifecycles.start({ workflow: "UploadScheduleFiring", id, account_id: kb.account_id })
          return created
        }))
      .handle("getUploadSchedule", ({ path }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
          const found = yield* schedules.findInKnowledgeBase(kb.knowledge_base_id, path.upload_schedule_id, [kb.account_id])
          return yield* Option.match(found, {
            onNone: () => Effect.fail(notFound("Upload schedule", path.upload_schedule_id)),
            onSome: Effect.succeed
          })
        }))
      .handle("updateUploadSchedule", ({ path, payload }) =>
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
              })
            }
          )
          // replanned from the schedule as changed (a firing planned before does nothing)
          if (fires(schedule)) {
            yield* lifecycles.start({ workflow: "UploadScheduleFiring", id: schedule.id, account_id: schedule.account_id, run: firing })
          }
          return schedule
        }))
      .handle("deleteUploadSchedule", ({ path }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
          yield* schedules.remove(kb.knowledge_base_id, path.upload_schedule_id, [kb.account_id], notFound("Upload schedule", path.upload_schedule_id))
          return new GenericDeleteResponse({ count: 1, success: true })
        }))
      .handle("listUploadScheduleRuns", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const kb = yield* knowledgeBases.get(path.knowledge_base_id, accountIds)
          const found = yield* schedules.findInKnowledgeBase(kb.knowledge_base_id, path.upload_schedule_id, [kb.account_id])
          if (Option.isNone(found)) return yield* Effect.fail(notFound("Upload schedule", path.upload_schedule_id))
          return yield* schedules.pageOfRuns(found.value.id, kb.account_id, pageOf(urlParams))
        }))
      .handle("listUploadSchedules", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const kb = yield* knowledgeBases.get(path.knowledge_base_id, accountIds)
          return yield* schedules.pageOfKnowledgeBase(kb.knowledge_base_id, kb.account_id, pageOf(urlParams))
        }))
      // artifacts ------------------------------------------------------------------------------
      .handle("createArtifact", ({ path, payload }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, payload.account_id)
          if (payload.knowledge_base_data_source_id !== undefined) {
            yield* ensureReference({
              ...dataSourceReference,
              id: payload.knowledge_base_data_source_id,
              accountIds: [kb.account_id]
            })
          }
          const [artifact_id, created_at] = yield* freshIdentity
          return yield* artifacts.insert(
            new KnowledgeBaseArtifact({
              artifact_id,
              knowledge_base_id: kb.knowledge_base_id,
              artifact_name: payload.artifact_name,
              artifact_uri: payload.artifact_uri ?? null,
              knowledge_base_data_source_id: payload.knowledge_base_data_source_id ?? null,
              content_modification_identifier: payload.content_modification_identifier ?? null,
              status: payload.status ?? "pending",
              account_id: kb.account_id,
              ...(yield* createdBy),
              created_at,
              updated_at: created_at
            })
          )
        }))
      .handle("getArtifact", ({ path }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
          const found = yield* artifacts.findInKnowledgeBase(kb.knowledge_base_id, path.artifact_id, [kb.account_id])
          return yield* Option.match(found, {
            onNone: () => Effect.fail(notFound("Artifact", path.artifact_id)),
            onSome: Effect.succeed
          })
        }))
      .handle("listArtifacts", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const kb = yield* knowledgeBases.get(path.knowledge_base_id, accountIds)
          return yield* artifacts.pageOfKnowledgeBase(kb.knowledge_base_id, kb.account_id, pageOf(urlParams))
        }))
  })
).pipe(
  Layer.provide(KnowledgeBaseViews.Default),
  Layer.provide(Layer.mergeAll(KnowledgeBasesRepo.Default, DataSourcesRepo.Default, UploadSchedulesRepo.Default, ArtifactsRepo.Default))
)
