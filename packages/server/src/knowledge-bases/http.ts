import { CurrentCaller } from "@platform-kit/api"
import {
  ArtifactChunk,
  ArtifactChunkEntry,
  BatchDeleteArtifactsResponse,
  ChunkList,
  ChunksStatus,
  DataSourceConnectionDeleteResponse,
  DataSourceVerification,
  DeleteArtifactResponse,
  DeleteKnowledgeBaseResponse,
  GenericDeleteResponse,
  KnowledgeBaseArtifact,
  KnowledgeBaseArtifactWithChunks,
  KnowledgeBaseDataSource,
  KnowledgeBaseUpdateResponse,
  NotFound,
  pageOf,
  UploadSchedule
} from "@platform-kit/schema"
import { Effect, Either, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import { ModelDeploymentsRepo } from "../models/deployments/ModelDeploymentsRepo.js"
import { ModelUsageRepo } from "../models/usage/ModelUsageRepo.js"
import { ChunksRepo, type ChunkRow } from "./ChunksRepo.js"
import { KnowledgeBaseEmbedder } from "./embedding.js"
import { BuiltinEmbeddings } from "./embeddingThread.js"
import { chunkOf, Retrieval } from "./retrieval.js"
import { chunkMetadata } from "./uploadRunner.js"
import { UploadsRepo } from "./UploadsRepo.js"
import { VectorIndexes } from "./vectorIndex.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { ObjectStore } from "../platform/ObjectStore.js"
import { ensureReference } from "../sql/documents.js"
import { ArtifactsRepo } from "./ArtifactsRepo.js"
import { DataSourcesRepo, dataSourceReference } from "./DataSourcesRepo.js"
import { KnowledgeBasesRepo, StoredKnowledgeBase } from "./KnowledgeBasesRepo.js"
import { KnowledgeBaseViews } from "./KnowledgeBaseViews.js"
import { fires, UploadSchedulesRepo } from "./UploadSchedulesRepo.js"
import type { ImplementGroup } from "../http/groups.js"

const notFound = (label: string, id: string) => new NotFound({ detail: `${label} ${id} not found` })

const parsed = (json: string | null) => (json === null ? null : JSON.parse(json) as Record<string, unknown>)

/** A stored chunk as an artifact's chunk list answers it. */
const artifactChunk = (row: ChunkRow) =>
  new ArtifactChunk({
    id: row.id,
    artifact_id: row.artifact_id,
    chunk_position: Number(row.chunk_position),
    status: row.status,
    text: row.text,
    metadata: parsed(row.metadata),
    status_reason: null,
    user_supplied_metadata: parsed(row.user_metadata),
    created_at: row.created_at
  })

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

export const KnowledgeBasesHttp = (group: ImplementGroup) =>
  group("knowledgeBases", (handlers) =>
  Effect.gen(function*() {
    const knowledgeBases = yield* KnowledgeBasesRepo
    const dataSources = yield* DataSourcesRepo
    const schedules = yield* UploadSchedulesRepo
    const artifacts = yield* ArtifactsRepo
    const views = yield* KnowledgeBaseViews
    const lifecycles = yield* Lifecycles
    const chunks = yield* ChunksRepo
    const uploads = yield* UploadsRepo
    const retrieval = yield* Retrieval
    const indexes = yield* VectorIndexes
    const store = yield* ObjectStore

    /** Artifact `artifactId` of knowledge base `knowledgeBaseId` (in `accountId`), else 404. */
    const artifactOf = (knowledgeBaseId: string, artifactId: string, accountId: string) =>
      Effect.flatMap(
        artifacts.findInKnowledgeBase(knowledgeBaseId, artifactId, [accountId]),
        Option.match({ onNone: () => Effect.fail(notFound("Artifact", artifactId)), onSome: Effect.succeed })
      )

    /** Deletes artifacts `ids` of `knowledgeBaseId` with their chunks, in one transaction. */
    const removeArtifacts = (knowledgeBaseId: string, ids: ReadonlyArray<string>) =>
      artifacts.transaction(Effect.zipRight(chunks.removeOfArtifacts(knowledgeBaseId, ids), artifacts.removeAll(ids)))

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
            }, true)
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
      .handle("update", ({ path, payload }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
          const updated_at = yield* nowIso
          const updated = yield* knowledgeBases.transaction(Effect.gen(function*() {
            const current = yield* knowledgeBases.get(kb.knowledge_base_id, [kb.account_id])
            return yield* knowledgeBases.update(new StoredKnowledgeBase({
              ...current,
              knowledge_base_name: payload.knowledge_base_name ?? current.knowledge_base_name,
              metadata: payload.metadata ?? current.metadata,
              updated_at
            }, true))
          }))
          return new KnowledgeBaseUpdateResponse({ knowledge_base_name: updated.knowledge_base_name, metadata: updated.metadata })
        }))
      .handle("delete", ({ path }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
          const id = kb.knowledge_base_id
          yield* knowledgeBases.transaction(Effect.gen(function*() {
            yield* chunks.lockBase(id)
            yield* chunks.removeOfKnowledgeBase(id)
            yield* artifacts.removeOfKnowledgeBase(id)
            yield* uploads.removeOfKnowledgeBase(id)
            yield* schedules.removeOf(id)
            yield* knowledgeBases.remove(id)
          }))
          yield* indexes.forget(id)
          return new DeleteKnowledgeBaseResponse({ deleted: true, knowledge_base_id: id })
        }))
      .handle("query", ({ path, payload }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
          const caller = yield* CurrentCaller
          return yield* retrieval.query(kb, payload, {
            account_id: kb.account_id,
            caller_id: caller.identityId,
            caller_type: caller.identityType
          })
        }))
      .handle("listChunks", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
          const rows = yield* chunks.list(kb.knowledge_base_id, {
            chunkId: urlParams.chunk_id,
            limit: urlParams.max_chunks ?? 10,
            filters: { metadata: urlParams.metadata_filters }
          })
          // a listing does not rank: every chunk scores 1
          return new ChunkList({ chunks: rows.map((row) => chunkOf(row, 1, null)) }, true)
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
            }, true)
          )
        }))
      .handle("getDataSource", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => dataSources.get(path.knowledge_base_data_source_id, accounts)))
      .handle("listDataSources", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          dataSources.page({ accountIds, ...pageOf(urlParams) })))
      .handle("updateDataSource", ({ path, payload }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const updated_at = yield* nowIso
          return yield* dataSources.transaction(Effect.gen(function*() {
            const current = yield* dataSources.get(path.knowledge_base_data_source_id, accounts)
            return yield* dataSources.update(new KnowledgeBaseDataSource({
              ...current,
              name: payload.name ?? current.name,
              description: payload.description ?? current.description,
              tagging_information: payload.tagging_information ?? current.tagging_information,
              updated_at
            }, true))
          }))
        }))
      .handle("deleteDataSource", ({ path }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const id = path.knowledge_base_data_source_id
          yield* dataSources.transaction(Effect.gen(function*() {
            const source = yield* dataSources.get(id, accounts)
            // its schedules stop with it; the artifacts it made stay their bases' (disconnect them first to remove them)
            yield* schedules.removeOf(undefined, source.id)
            yield* dataSources.remove(source.id)
          }))
          return new GenericDeleteResponse({ count: 1, success: true })
        }))
      .handle("verifyDataSource", ({ path }) =>
        Effect.gen(function*() {
          const source = yield* dataSources.get(path.knowledge_base_data_source_id, yield* callerAccounts)
          const config = source.data_source_config
          const listed = yield* Effect.either(store.list(config.object_store_bucket, config.object_store_prefix))
          return new DataSourceVerification({
            knowledge_base_data_source_id: source.id,
            readable: Either.isRight(listed),
            status_reason: Either.isLeft(listed) ? listed.left.message : null,
            object_count: Either.isRight(listed) ? listed.right.objects.length : 0
          })
        }))
      .handle("deleteDataSourceConnection", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
          const id = path.knowledge_base_data_source_id
          const artifactsOf = Effect.map(
            artifacts.ofDataSource(kb.knowledge_base_id, id, kb.account_id),
            (found) => found.map((artifact) => artifact.artifact_id)
          )
          // the data source of the base's account, or, deleted since, one its artifacts still name
          const source = yield* dataSources.findById(id, [kb.account_id])
          if (Option.isNone(source) && (yield* artifactsOf).length === 0) return yield* Effect.fail(notFound("Knowledge base data source", id))
          const count = urlParams.dry_run === true
            ? (yield* artifactsOf).length
            : yield* artifacts.transaction(Effect.gen(function*() {
              // the base first, then what to delete as it is now (an upload of the source may have added some)
              yield* chunks.lockBase(kb.knowledge_base_id)
              const ids = yield* artifactsOf
              yield* chunks.removeOfArtifacts(kb.knowledge_base_id, ids)
              yield* artifacts.removeAll(ids)
              yield* schedules.removeOf(kb.knowledge_base_id, id)
              yield* uploads.removeOfDataSource(kb.knowledge_base_id, id)
              return ids.length
            }))
          return new DataSourceConnectionDeleteResponse({ artifacts_to_delete: { [id]: count }, deletion_workflow_id: null })
        }))
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
            }, true)
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
              }, true)
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
              artifact_uri_public: null,
              source: payload.source ?? "LocalFile",
              status_reason: null,
              tags: payload.tags ?? {},
              chunks_status: new ChunksStatus({ chunks_completed: 0, chunks_failed: 0, chunks_pending: 0 }),
              upload_id: null,
              chunking_strategy_config: null,
              knowledge_base_data_source_id: payload.knowledge_base_data_source_id ?? null,
              content_modification_identifier: payload.content_modification_identifier ?? null,
              status: payload.status ?? "Pending",
              account_id: kb.account_id,
              ...(yield* createdBy),
              created_at,
              updated_at: created_at
            }, true)
          )
        }))
      .handle("getArtifact", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
          const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
          const rows = yield* chunks.ofArtifact(artifact.artifact_id, urlParams.status_filter)
          return new KnowledgeBaseArtifactWithChunks({
            ...artifact,
            chunks: rows.map((row) =>
              new ArtifactChunkEntry({
                chunk_id: row.id,
                chunk_position: Number(row.chunk_position),
                text: row.text,
                upload_status: row.status,
                metadata: parsed(row.metadata),
                status_reason: null,
                user_supplied_metadata: parsed(row.user_metadata)
              })
            )
          }, true)
        }))
      .handle("listArtifacts", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const kb = yield* knowledgeBases.get(path.knowledge_base_id, accountIds)
          return yield* artifacts.pageOfKnowledgeBase(kb.knowledge_base_id, kb.account_id, pageOf(urlParams), urlParams.status)
        }))
      .handle("updateArtifact", ({ path, payload }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
          const updated_at = yield* nowIso
          return yield* artifacts.transaction(Effect.gen(function*() {
            yield* chunks.lockBase(kb.knowledge_base_id)
            const current = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
            if (payload.tags === undefined) return current
            const updated = yield* artifacts.update(new KnowledgeBaseArtifact({ ...current, tags: { ...payload.tags }, updated_at }, true))
            // the chunks' metadata carries the tags
            yield* chunks.remetadata(kb.knowledge_base_id, updated.artifact_id, (row) =>
              JSON.stringify(chunkMetadata(updated, Number(row.chunk_position), parsed(row.user_metadata))))
            return updated
          }))
        }))
      .handle("deleteArtifact", ({ path }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
          const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
          yield* removeArtifacts(kb.knowledge_base_id, [artifact.artifact_id])
          return new DeleteArtifactResponse({ artifact_id: artifact.artifact_id, deleted: true })
        }))
      .handle("batchDeleteArtifacts", ({ path, payload }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
          const found = yield* Effect.forEach(
            [...new Set(payload.artifact_ids)],
            (id) => artifacts.findInKnowledgeBase(kb.knowledge_base_id, id, [kb.account_id])
          )
          const ids = found.flatMap((artifact) => Option.isSome(artifact) ? [artifact.value.artifact_id] : [])
          yield* removeArtifacts(kb.knowledge_base_id, ids)
          return new BatchDeleteArtifactsResponse({ artifact_ids: ids })
        }))
      .handle("listArtifactChunks", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBases.get(path.knowledge_base_id, yield* accountsForRead(urlParams.account_id))
          const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
          const { page, limit } = pageOf(urlParams)
          const found = yield* chunks.pageOfArtifact(artifact.artifact_id, { page, limit }, urlParams.chunk_status)
          return { items: found.rows.map(artifactChunk), total_item_count: found.total, current_page: page, items_per_page: limit }
        }))
  })
).pipe(
  Layer.provide(KnowledgeBaseViews.Default),
  Layer.provide(Retrieval.DefaultWithoutDependencies),
  Layer.provide(KnowledgeBaseEmbedder.Default),
  // a query embeds its one text where it runs (embeddingThread.ts)
  Layer.provide(BuiltinEmbeddings.inThread),
  Layer.provide(Layer.mergeAll(
    KnowledgeBasesRepo.Default,
    DataSourcesRepo.Default,
    UploadSchedulesRepo.Default,
    ArtifactsRepo.Default,
    ChunksRepo.Default,
    UploadsRepo.Default,
    VectorIndexes.Default,
    ObjectStore.Default,
    ModelResolver.Default,
    ModelDeploymentsRepo.Default,
    ModelUsageRepo.Default
  ))
)
