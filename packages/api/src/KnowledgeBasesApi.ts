import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ArtifactChunk,
  ArtifactChunksQuery,
  ArtifactGetQuery,
  ArtifactListQuery,
  BatchDeleteArtifacts,
  BatchDeleteArtifactsResponse,
  ChunkList,
  CreateKnowledgeBase,
  DataSourceConnectionDeleteQuery,
  DataSourceConnectionDeleteResponse,
  DataSourceVerification,
  DeleteArtifactResponse,
  DeleteKnowledgeBaseResponse,
  KnowledgeBaseArtifactWithChunks,
  KnowledgeBaseChunksQuery,
  KnowledgeBaseQuery,
  KnowledgeBaseUpdateResponse,
  UpdateKnowledgeBase,
  UpdateKnowledgeBaseArtifact,
  UpdateKnowledgeBaseDataSource,
  CreateKnowledgeBaseArtifact,
  CreateKnowledgeBaseDataSource,
  CreateUploadSchedule,
  GenericDeleteResponse,
  Id,
  KnowledgeBase,
  KnowledgeBaseArtifact,
  KnowledgeBaseDataSource,
  KnowledgeBaseGetQuery,
  KnowledgeBaseListQuery,
  NotFound,
  UpdateUploadSchedule,
  UploadSchedule,
  UploadScheduleRun,
  V4ListQuery,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { modelRunEndpoint } from "./InferenceApi.js"
import { Authentication } from "./security.js"

const KnowledgeBasePath = Schema.Struct({ knowledge_base_id: Id })
const UploadSchedulePath = Schema.Struct({ knowledge_base_id: Id, upload_schedule_id: Id })
const DataSourcePath = Schema.Struct({ knowledge_base_data_source_id: Id })
const ArtifactPath = Schema.Struct({ knowledge_base_id: Id, artifact_id: Id })

export class KnowledgeBasesApi extends HttpApiGroup.make("knowledgeBases")
  .middleware(Authentication)
  // knowledge bases
  .add(
    HttpApiEndpoint.post("create", "/v4/knowledge-bases")
      .setPayload(CreateKnowledgeBase)
      .addSuccess(KnowledgeBase)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/knowledge-bases/:knowledge_base_id")
      .setPath(KnowledgeBasePath)
      .setUrlParams(KnowledgeBaseGetQuery)
      .addSuccess(KnowledgeBase)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/knowledge-bases")
      .setUrlParams(KnowledgeBaseListQuery)
      .addSuccess(V4Page(KnowledgeBase))
  )
  .add(
    HttpApiEndpoint.patch("update", "/v4/knowledge-bases/:knowledge_base_id")
      .setPath(KnowledgeBasePath)
      .setPayload(UpdateKnowledgeBase)
      .addSuccess(KnowledgeBaseUpdateResponse)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/knowledge-bases/:knowledge_base_id")
      .setPath(KnowledgeBasePath)
      .addSuccess(DeleteKnowledgeBaseResponse)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Deletes the knowledge base with its artifacts, chunks, uploads and upload schedules.")
  )
  .add(
    // a query runs the base's embedding model: the errors of a model's run
    modelRunEndpoint("query", "/v4/knowledge-bases/:knowledge_base_id/query")
      .setPath(KnowledgeBasePath)
      .setPayload(KnowledgeBaseQuery)
      .addSuccess(ChunkList)
      .annotate(
        OpenApi.Description,
        "The chunks closest to the query, best first: full-text search of the database combined with the similarity of embeddings (docs/knowledge-bases.md)."
      )
  )
  .add(
    HttpApiEndpoint.get("listChunks", "/v4/knowledge-bases/:knowledge_base_id/chunks")
      .setPath(KnowledgeBasePath)
      .setUrlParams(KnowledgeBaseChunksQuery)
      .addSuccess(ChunkList)
      .addError(NotFound)
  )
  // data sources
  .add(
    HttpApiEndpoint.post("createDataSource", "/v4/knowledge-base-data-sources")
      .setPayload(CreateKnowledgeBaseDataSource)
      .addSuccess(KnowledgeBaseDataSource)
  )
  .add(
    HttpApiEndpoint.get("getDataSource", "/v4/knowledge-base-data-sources/:knowledge_base_data_source_id")
      .setPath(Schema.Struct({ knowledge_base_data_source_id: Id }))
      .addSuccess(KnowledgeBaseDataSource)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listDataSources", "/v4/knowledge-base-data-sources")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(KnowledgeBaseDataSource))
  )
  .add(
    HttpApiEndpoint.patch("updateDataSource", "/v4/knowledge-base-data-sources/:knowledge_base_data_source_id")
      .setPath(DataSourcePath)
      .setPayload(UpdateKnowledgeBaseDataSource)
      .addSuccess(KnowledgeBaseDataSource)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("deleteDataSource", "/v4/knowledge-base-data-sources/:knowledge_base_data_source_id")
      .setPath(DataSourcePath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Deletes a data source and the upload schedules naming it; the artifacts read from it stay (a connection's delete removes them)."
      )
  )
  .add(
    HttpApiEndpoint.post("verifyDataSource", "/v4/knowledge-base-data-sources/:knowledge_base_data_source_id/verify")
      .setPath(DataSourcePath)
      .addSuccess(DataSourceVerification)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Whether the data source's folder of the object store can be read, and how many files it holds.")
  )
  .add(
    HttpApiEndpoint.post(
      "deleteDataSourceConnection",
      "/v4/knowledge-bases/:knowledge_base_id/data-source-connections/:knowledge_base_data_source_id/delete"
    )
      .setPath(Schema.Struct({ knowledge_base_id: Id, knowledge_base_data_source_id: Id }))
      .setUrlParams(DataSourceConnectionDeleteQuery)
      .addSuccess(DataSourceConnectionDeleteResponse)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Disconnects a data source from the knowledge base: its artifacts there (with their chunks) and the upload schedules naming it go; `dry_run` only counts them."
      )
  )
  // upload schedules
  .add(
    HttpApiEndpoint.post("createUploadSchedule", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules")
      .setPath(KnowledgeBasePath)
      .setPayload(CreateUploadSchedule)
      .addSuccess(UploadSchedule)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get(
      "getUploadSchedule",
      "/v4/knowledge-bases/:knowledge_base_id/upload-schedules/:upload_schedule_id"
    )
      .setPath(Schema.Struct({ knowledge_base_id: Id, upload_schedule_id: Id }))
      .addSuccess(UploadSchedule)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("updateUploadSchedule", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules/:upload_schedule_id")
      .setPath(UploadSchedulePath)
      .setPayload(UpdateUploadSchedule)
      .addSuccess(UploadSchedule)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("deleteUploadSchedule", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules/:upload_schedule_id")
      .setPath(UploadSchedulePath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listUploadScheduleRuns", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules/:upload_schedule_id/runs")
      .setPath(UploadSchedulePath)
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(UploadScheduleRun))
      .addError(NotFound)
      .annotate(OpenApi.Description, "The kit's extension: the runs of an upload schedule, newest first.")
  )
  .add(
    HttpApiEndpoint.get("listUploadSchedules", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules")
      .setPath(KnowledgeBasePath)
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(UploadSchedule))
      .addError(NotFound)
  )
  // artifacts (our extension)
  .add(
    HttpApiEndpoint.post("createArtifact", "/v4/knowledge-bases/:knowledge_base_id/artifacts")
      .setPath(KnowledgeBasePath)
      .setPayload(CreateKnowledgeBaseArtifact)
      .addSuccess(KnowledgeBaseArtifact)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getArtifact", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id")
      .setPath(ArtifactPath)
      .setUrlParams(ArtifactGetQuery)
      .addSuccess(KnowledgeBaseArtifactWithChunks)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listArtifacts", "/v4/knowledge-bases/:knowledge_base_id/artifacts")
      .setPath(KnowledgeBasePath)
      .setUrlParams(ArtifactListQuery)
      .addSuccess(V4Page(KnowledgeBaseArtifact))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("updateArtifact", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id")
      .setPath(ArtifactPath)
      .setPayload(UpdateKnowledgeBaseArtifact)
      .addSuccess(KnowledgeBaseArtifact)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("deleteArtifact", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id")
      .setPath(ArtifactPath)
      .addSuccess(DeleteArtifactResponse)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("batchDeleteArtifacts", "/v4/knowledge-bases/:knowledge_base_id/artifacts/batch-delete")
      .setPath(KnowledgeBasePath)
      .setPayload(BatchDeleteArtifacts)
      .addSuccess(BatchDeleteArtifactsResponse)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listArtifactChunks", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id/chunks")
      .setPath(ArtifactPath)
      .setUrlParams(ArtifactChunksQuery)
      .addSuccess(V4Page(ArtifactChunk))
      .addError(NotFound)
  )
  .annotate(OpenApi.Title, "Knowledge bases")
{}
