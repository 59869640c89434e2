import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  CancelUploadResponse,
  CreateKnowledgeBaseUpload,
  CreateKnowledgeBaseUploadResponse,
  Id,
  KnowledgeBaseUpload,
  KnowledgeBaseUploadItem,
  NotFound,
  UploadFilesForm,
  UploadFilesResponse,
  UploadGetQuery,
  UploadListQuery,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const KnowledgeBasePath = Schema.Struct({ knowledge_base_id: Id })
const UploadPath = Schema.Struct({ knowledge_base_id: Id, upload_id: Id })

/** Uploads into a knowledge base (the real SDK's `knowledge_bases.uploads`): ingestion on the engine. */
export class KnowledgeBaseUploadsApi extends HttpApiGroup.make("knowledgeBaseUploads")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/knowledge-bases/:knowledge_base_id/uploads")
      .setPath(KnowledgeBasePath)
      .setPayload(CreateKnowledgeBaseUpload)
      .addSuccess(CreateKnowledgeBaseUploadResponse)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Starts an upload: the files of a data source (or of a config) or the chunks given are chunked, embedded and stored as the knowledge base's artifacts, in the background."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/knowledge-bases/:knowledge_base_id/uploads/:upload_id")
      .setPath(UploadPath)
      .setUrlParams(UploadGetQuery)
      .addSuccess(KnowledgeBaseUpload)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/knowledge-bases/:knowledge_base_id/uploads")
      .setPath(KnowledgeBasePath)
      .setUrlParams(UploadListQuery)
      .addSuccess(V4Page(KnowledgeBaseUploadItem))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("cancel", "/v4/knowledge-bases/:knowledge_base_id/uploads/:upload_id/cancel")
      .setPath(UploadPath)
      .addSuccess(CancelUploadResponse)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("uploadFiles", "/v4/knowledge-bases/:knowledge_base_id/upload_files")
      .setPath(KnowledgeBasePath)
      .setPayload(HttpApiSchema.MultipartStream(UploadFilesForm))
      .addSuccess(UploadFilesResponse)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Uploads files (multipart/form-data, within the body size limit): one upload of them all, run as any upload; each file an artifact `local://<name>`."
      )
  )
  .annotate(OpenApi.Title, "Knowledge base uploads")
{}
