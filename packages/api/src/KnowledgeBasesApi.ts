import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ArtifactChunk,
  ArtifactChunksQuery,
  ArtifactChunkWrite,
  AsyncJob,
  AsyncJobListQuery,
  BadGateway,
  Conflict,
  DeleteArtifactChunkResponse,
  GatewayTimeout,
  UpstreamBadRequest,
  UpstreamRateLimited,
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
const ArtifactChunkPath = Schema.Struct({ knowledge_base_id: Id, artifact_id: Id, chunk_id: Id })

export class KnowledgeBasesApi extends HttpApiGroup.make("knowledgeBases")
  .middleware(Authentication)
  // knowledge bases
  .add(
    HttpApiEndpoint.post("create", "/v4/knowledge-bases")
      .setPayload(CreateKnowledgeBase)
      .addSuccess(KnowledgeBase)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create a knowledge base")
      .annotate(
        OpenApi.Description,
        "Creates a knowledge base with its `embedding_config` (fixed once made); a `models_api` config must name a model deployment of the base's account, else 404."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/knowledge-bases/:knowledge_base_id")
      .setPath(KnowledgeBasePath)
      .setUrlParams(KnowledgeBaseGetQuery)
      .addSuccess(KnowledgeBase)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a knowledge base")
      .annotate(
        OpenApi.Description,
        "Answers the knowledge base; `view` (`Connections`, `ArtifactCount`, `IndexConfiguration`) adds those fields. 404 when it is not in the caller's accounts."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/knowledge-bases")
      .setUrlParams(KnowledgeBaseListQuery)
      .addSuccess(V4Page(KnowledgeBase))
      .annotate(OpenApi.Summary, "List knowledge bases")
      .annotate(
        OpenApi.Description,
        "Lists the knowledge bases of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`); `view` as for a read."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/v4/knowledge-bases/:knowledge_base_id")
      .setPath(KnowledgeBasePath)
      .setPayload(UpdateKnowledgeBase)
      .addSuccess(KnowledgeBaseUpdateResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a knowledge base")
      .annotate(
        OpenApi.Description,
        "Changes `knowledge_base_name` and/or `metadata` (replaced) and answers both as they now are; the embedding config cannot change."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/knowledge-bases/:knowledge_base_id")
      .setPath(KnowledgeBasePath)
      .addSuccess(DeleteKnowledgeBaseResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a knowledge base")
      .annotate(OpenApi.Description, "Deletes the knowledge base with its artifacts, chunks, uploads and upload schedules.")
  )
  .add(
    // a query runs the base's embedding model: the errors of a model's run
    modelRunEndpoint("query", "/v4/knowledge-bases/:knowledge_base_id/query")
      .setPath(KnowledgeBasePath)
      .setPayload(KnowledgeBaseQuery)
      .addSuccess(ChunkList)
      .annotate(OpenApi.Summary, "Query a knowledge base")
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
      .annotate(OpenApi.Summary, "List the chunks of a knowledge base")
      .annotate(
        OpenApi.Description,
        "Answers the chunk `chunk_id`, or the first `max_chunks` (default 10, at most 2000) chunks that `metadata_filters` (JSON) keep, in upload order, each scored 1."
      )
  )
  // data sources
  .add(
    HttpApiEndpoint.post("createDataSource", "/v4/knowledge-base-data-sources")
      .setPayload(CreateKnowledgeBaseDataSource)
      .addSuccess(KnowledgeBaseDataSource)
      .annotate(OpenApi.Summary, "Create a knowledge base data source")
      .annotate(
        OpenApi.Description,
        "Creates a data source: a folder of the object store (`OBJECT_STORE`: bucket, prefix) that uploads and upload schedules read."
      )
  )
  .add(
    HttpApiEndpoint.get("getDataSource", "/v4/knowledge-base-data-sources/:knowledge_base_data_source_id")
      .setPath(Schema.Struct({ knowledge_base_data_source_id: Id }))
      .addSuccess(KnowledgeBaseDataSource)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a knowledge base data source")
      .annotate(OpenApi.Description, "Answers the data source; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("listDataSources", "/v4/knowledge-base-data-sources")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(KnowledgeBaseDataSource))
      .annotate(OpenApi.Summary, "List knowledge base data sources")
      .annotate(
        OpenApi.Description,
        "Lists the data sources of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateDataSource", "/v4/knowledge-base-data-sources/:knowledge_base_data_source_id")
      .setPath(DataSourcePath)
      .setPayload(UpdateKnowledgeBaseDataSource)
      .addSuccess(KnowledgeBaseDataSource)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a knowledge base data source")
      .annotate(
        OpenApi.Description,
        "Changes `name`, `description` and/or `tagging_information`; `data_source_config` cannot change."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteDataSource", "/v4/knowledge-base-data-sources/:knowledge_base_data_source_id")
      .setPath(DataSourcePath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a knowledge base data source")
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
      .annotate(OpenApi.Summary, "Verify that a data source can be read")
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
      .annotate(OpenApi.Summary, "Disconnect a data source from a knowledge base")
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
      .annotate(OpenApi.Summary, "Create an upload schedule")
      .annotate(
        OpenApi.Description,
        "Creates a schedule that uploads a data source of the base's account every `interval` seconds (0: never by itself), first at `next_run_at` or one interval after creation; answered `HEALTHY`."
      )
  )
  .add(
    HttpApiEndpoint.get(
      "getUploadSchedule",
      "/v4/knowledge-bases/:knowledge_base_id/upload-schedules/:upload_schedule_id"
    )
      .setPath(Schema.Struct({ knowledge_base_id: Id, upload_schedule_id: Id }))
      .addSuccess(UploadSchedule)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an upload schedule")
      .annotate(
        OpenApi.Description,
        "Answers the upload schedule of this knowledge base; 404 when it is missing or another base's."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateUploadSchedule", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules/:upload_schedule_id")
      .setPath(UploadSchedulePath)
      .setPayload(UpdateUploadSchedule)
      .addSuccess(UploadSchedule)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update an upload schedule")
      .annotate(
        OpenApi.Description,
        "Changes `chunking_strategy_config`, `interval`, `next_run_at` and/or `status` (`PAUSED` stops the firing, `HEALTHY` resumes it), and plans the next firing anew."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteUploadSchedule", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules/:upload_schedule_id")
      .setPath(UploadSchedulePath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete an upload schedule")
      .annotate(OpenApi.Description, "Deletes the upload schedule and its runs; a firing planned for it does nothing.")
  )
  .add(
    HttpApiEndpoint.get("listUploadScheduleRuns", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules/:upload_schedule_id/runs")
      .setPath(UploadSchedulePath)
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(UploadScheduleRun))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the runs of an upload schedule")
      .annotate(OpenApi.Description, "The kit's extension: the runs of an upload schedule, newest first.")
  )
  .add(
    HttpApiEndpoint.get("listUploadSchedules", "/v4/knowledge-bases/:knowledge_base_id/upload-schedules")
      .setPath(KnowledgeBasePath)
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(UploadSchedule))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the upload schedules of a knowledge base")
      .annotate(
        OpenApi.Description,
        "Lists the knowledge base's upload schedules, newest first, as a v4 page (`page`, `limit`)."
      )
  )
  // artifacts (our extension)
  .add(
    HttpApiEndpoint.post("createArtifact", "/v4/knowledge-bases/:knowledge_base_id/artifacts")
      .setPath(KnowledgeBasePath)
      .setPayload(CreateKnowledgeBaseArtifact)
      .addSuccess(KnowledgeBaseArtifact)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Register a knowledge base artifact")
      .annotate(
        OpenApi.Description,
        "The kit's extension: registers an artifact by hand (`artifact_name` required; status `Pending` and source `LocalFile` unless given), with no chunks."
      )
  )
  .add(
    HttpApiEndpoint.get("getArtifact", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id")
      .setPath(ArtifactPath)
      .setUrlParams(ArtifactGetQuery)
      .addSuccess(KnowledgeBaseArtifactWithChunks)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a knowledge base artifact")
      .annotate(
        OpenApi.Description,
        "Answers the artifact with its chunks; `status_filter` keeps the chunks of one status."
      )
  )
  .add(
    HttpApiEndpoint.get("listArtifacts", "/v4/knowledge-bases/:knowledge_base_id/artifacts")
      .setPath(KnowledgeBasePath)
      .setUrlParams(ArtifactListQuery)
      .addSuccess(V4Page(KnowledgeBaseArtifact))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the artifacts of a knowledge base")
      .annotate(
        OpenApi.Description,
        "Lists the knowledge base's artifacts, newest first, as a v4 page (`page`, `limit`); `status` keeps one status."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateArtifact", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id")
      .setPath(ArtifactPath)
      .setPayload(UpdateKnowledgeBaseArtifact)
      .addSuccess(KnowledgeBaseArtifact)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update the tags of an artifact")
      .annotate(
        OpenApi.Description,
        "Replaces the artifact's `tags`, and the tags in its chunks' metadata, so metadata filters find its chunks by them at once."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteArtifact", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id")
      .setPath(ArtifactPath)
      .addSuccess(DeleteArtifactResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a knowledge base artifact")
      .annotate(OpenApi.Description, "Deletes the artifact with its chunks.")
  )
  .add(
    HttpApiEndpoint.post("batchDeleteArtifacts", "/v4/knowledge-bases/:knowledge_base_id/artifacts/batch-delete")
      .setPath(KnowledgeBasePath)
      .setPayload(BatchDeleteArtifacts)
      .addSuccess(BatchDeleteArtifactsResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete several knowledge base artifacts")
      .annotate(
        OpenApi.Description,
        "Deletes the artifacts `artifact_ids` names with their chunks, in one transaction; answers the ids that were this base's (others are left, unreported)."
      )
  )
  .add(
    HttpApiEndpoint.get("listArtifactChunks", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id/chunks")
      .setPath(ArtifactPath)
      .setUrlParams(ArtifactChunksQuery)
      .addSuccess(V4Page(ArtifactChunk))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the chunks of an artifact")
      .annotate(
        OpenApi.Description,
        "Lists the artifact's chunks by position as a v4 page (`page`, `limit`); `chunk_status` keeps one status."
      )
  )
  .add(
    // a chunk written by hand is embedded by the base's embedding model: the errors of a model's run
    modelRunEndpoint("createArtifactChunk", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id/chunks")
      .setPath(ArtifactPath)
      .setPayload(ArtifactChunkWrite)
      .addSuccess(ArtifactChunk)
      .annotate(OpenApi.Summary, "Add a chunk to a local chunks artifact")
      .annotate(
        OpenApi.Description,
        "Writes a chunk by hand into a `LocalChunks` artifact: embedded and indexed before the answer (`status` `Completed`, found by queries at once), the artifact's `chunks_status` counting it. 409 for an artifact of another source or one an upload is ingesting."
      )
  )
  .add(
    HttpApiEndpoint.get("getArtifactChunk", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id/chunks/:chunk_id")
      .setPath(ArtifactChunkPath)
      .addSuccess(ArtifactChunk)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a chunk of an artifact")
      .annotate(OpenApi.Description, "Answers one chunk of the artifact (of any source); 404 when it is not this artifact's.")
  )
  .add(
    HttpApiEndpoint.put("putArtifactChunk", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id/chunks/:chunk_id")
      .setPath(ArtifactChunkPath)
      .setPayload(ArtifactChunkWrite)
      .addSuccess(ArtifactChunk)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UpstreamBadRequest)
      .addError(UpstreamRateLimited)
      .addError(BadGateway)
      .addError(GatewayTimeout)
      .annotate(OpenApi.Summary, "Replace a chunk of a local chunks artifact")
      .annotate(
        OpenApi.Description,
        "Replaces the chunk's `text`, `chunk_position` and `metadata` (left out: none) and embeds it again, before the answer; queries find it as it now is at once. 409 as for a create."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteArtifactChunk", "/v4/knowledge-bases/:knowledge_base_id/artifacts/:artifact_id/chunks/:chunk_id")
      .setPath(ArtifactChunkPath)
      .addSuccess(DeleteArtifactChunkResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Delete a chunk of a local chunks artifact")
      .annotate(
        OpenApi.Description,
        "Deletes the chunk: out of queries and lists at once, out of the artifact's `chunks_status`. 409 as for a create."
      )
  )
  // async jobs
  .add(
    HttpApiEndpoint.get("listAsyncJobs", "/v4/knowledge-bases/:knowledge_base_id/async-jobs")
      .setPath(KnowledgeBasePath)
      .setUrlParams(AsyncJobListQuery)
      .addSuccess(Schema.Array(AsyncJob))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the async jobs of a knowledge base")
      .annotate(
        OpenApi.Description,
        "The knowledge base's uploads (and the upload schedule runs that failed before making one) as `knowledge_base_upload` jobs, newest first, as a bare array (`page`, `limit`); `status` keeps one status, `Active` the `Pending` and `Running` ones, `All` every one."
      )
  )
  .annotate(OpenApi.Title, "Knowledge bases")
  .annotate(
    OpenApi.Description,
    "Knowledge bases with their data sources, upload schedules, artifacts and chunks, and retrieval queries over their chunks."
  )
{}
