import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CreateKnowledgeBase,
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
import { Authentication } from "./security.js"

const KnowledgeBasePath = Schema.Struct({ knowledge_base_id: Id })
const UploadSchedulePath = Schema.Struct({ knowledge_base_id: Id, upload_schedule_id: Id })

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
      .setPath(Schema.Struct({ knowledge_base_id: Id, artifact_id: Id }))
      .addSuccess(KnowledgeBaseArtifact)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listArtifacts", "/v4/knowledge-bases/:knowledge_base_id/artifacts")
      .setPath(KnowledgeBasePath)
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(KnowledgeBaseArtifact))
      .addError(NotFound)
  )
  .annotate(OpenApi.Title, "Knowledge bases")
{}
