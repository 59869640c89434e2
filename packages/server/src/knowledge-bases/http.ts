/**
 * The `knowledgeBases` group of the API: knowledge bases themselves here, the rest from the
 * family's rooms: data sources (data-sources/), upload schedules (schedules/), artifacts and their
 * chunks (artifacts/), query and chunk listing (retrieval/), async jobs (async-jobs/). Uploads, a
 * group of their own, are in uploads/.
 */
import {
  DeleteKnowledgeBaseResponse,
  KnowledgeBaseUpdateResponse,
  pageOf
} from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, createdBy } from "../auth/access.js"
import type { ImplementGroup } from "../http/groups.js"
import { ModelDeploymentsRepo } from "../models/deployments/ModelDeploymentsRepo.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import { ModelUsageRepo } from "../models/usage/ModelUsageRepo.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { ObjectStore } from "../platform/ObjectStore.js"
import { ensureReference } from "../sql/documents.js"
import { knowledgeBaseForRead, knowledgeBaseForWrite } from "./access.js"
import { ArtifactsRepo } from "./artifacts/ArtifactsRepo.js"
import { AsyncJobsRepo } from "./async-jobs/AsyncJobsRepo.js"
import { AsyncJobsHandlers } from "./async-jobs/http.js"
import { ArtifactsHandlers } from "./artifacts/http.js"
import { ChunksRepo } from "./artifacts/ChunksRepo.js"
import { DataSourcesRepo } from "./data-sources/DataSourcesRepo.js"
import { DataSourcesHandlers } from "./data-sources/http.js"
import { KnowledgeBasesRepo, StoredKnowledgeBase } from "./KnowledgeBasesRepo.js"
import { KnowledgeBaseViews } from "./KnowledgeBaseViews.js"
import { KnowledgeBaseEmbedder } from "./retrieval/embedding.js"
import { BuiltinEmbeddings } from "./retrieval/embeddingThread.js"
import { RetrievalHandlers } from "./retrieval/http.js"
import { Retrieval } from "./retrieval/retrieval.js"
import { VectorIndexes } from "./retrieval/vectorIndex.js"
import { SchedulesHandlers } from "./schedules/http.js"
import { UploadSchedulesRepo } from "./schedules/UploadSchedulesRepo.js"
import { UploadsRepo } from "./uploads/UploadsRepo.js"

export const KnowledgeBasesHttp = (group: ImplementGroup) =>
  group("knowledgeBases", (handlers) =>
    Effect.gen(function*() {
      const knowledgeBases = yield* KnowledgeBasesRepo
      const views = yield* KnowledgeBaseViews
      const schedules = yield* UploadSchedulesRepo
      const artifacts = yield* ArtifactsRepo
      const chunks = yield* ChunksRepo
      const uploads = yield* UploadsRepo
      const indexes = yield* VectorIndexes
      const retrieval = yield* RetrievalHandlers
      const dataSources = yield* DataSourcesHandlers
      const scheduleHandlers = yield* SchedulesHandlers
      const artifactHandlers = yield* ArtifactsHandlers
      const asyncJobs = yield* AsyncJobsHandlers
      return handlers
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
        .handle("query", retrieval.query)
        .handle("listChunks", retrieval.listChunks)
        .handle("createDataSource", dataSources.createDataSource)
        .handle("getDataSource", dataSources.getDataSource)
        .handle("listDataSources", dataSources.listDataSources)
        .handle("updateDataSource", dataSources.updateDataSource)
        .handle("deleteDataSource", dataSources.deleteDataSource)
        .handle("verifyDataSource", dataSources.verifyDataSource)
        .handle("deleteDataSourceConnection", dataSources.deleteDataSourceConnection)
        .handle("createUploadSchedule", scheduleHandlers.createUploadSchedule)
        .handle("getUploadSchedule", scheduleHandlers.getUploadSchedule)
        .handle("updateUploadSchedule", scheduleHandlers.updateUploadSchedule)
        .handle("deleteUploadSchedule", scheduleHandlers.deleteUploadSchedule)
        .handle("listUploadScheduleRuns", scheduleHandlers.listUploadScheduleRuns)
        .handle("listUploadSchedules", scheduleHandlers.listUploadSchedules)
        .handle("createArtifact", artifactHandlers.createArtifact)
        .handle("getArtifact", artifactHandlers.getArtifact)
        .handle("listArtifacts", artifactHandlers.listArtifacts)
        .handle("updateArtifact", artifactHandlers.updateArtifact)
        .handle("deleteArtifact", artifactHandlers.deleteArtifact)
        .handle("batchDeleteArtifacts", artifactHandlers.batchDeleteArtifacts)
        .handle("listArtifactChunks", artifactHandlers.listArtifactChunks)
        .handle("createArtifactChunk", artifactHandlers.createArtifactChunk)
        .handle("getArtifactChunk", artifactHandlers.getArtifactChunk)
        .handle("putArtifactChunk", artifactHandlers.putArtifactChunk)
        .handle("deleteArtifactChunk", artifactHandlers.deleteArtifactChunk)
        .handle("listAsyncJobs", asyncJobs.listAsyncJobs)
    })
).pipe(
  Layer.provide(KnowledgeBaseViews.Default),
  Layer.provide(AsyncJobsRepo.DefaultWithoutDependencies),
  Layer.provide(Retrieval.DefaultWithoutDependencies),
  Layer.provide(KnowledgeBaseEmbedder.Default),
  // a query embeds its one text where it runs (retrieval/embeddingThread.ts)
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
