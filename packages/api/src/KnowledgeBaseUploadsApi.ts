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
      .annotate(OpenApi.Summary, "Start a knowledge base upload")
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
      .annotate(OpenApi.Summary, "Get a knowledge base upload")
      .annotate(
        OpenApi.Description,
        "Answers where the upload stands (`Running`, then `Completed`, `Failed` or `Canceled`) with its artifacts' counts; its artifacts are listed only with `include_artifact_list=true`."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/knowledge-bases/:knowledge_base_id/uploads")
      .setPath(KnowledgeBasePath)
      .setUrlParams(UploadListQuery)
      .addSuccess(V4Page(KnowledgeBaseUploadItem))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List knowledge base uploads")
      .annotate(
        OpenApi.Description,
        "Lists the knowledge base's uploads, newest first, as a v4 page (`page`, `limit`); `status` keeps one status."
      )
  )
  .add(
    HttpApiEndpoint.post("cancel", "/v4/knowledge-bases/:knowledge_base_id/uploads/:upload_id/cancel")
      .setPath(UploadPath)
      .addSuccess(CancelUploadResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Cancel a knowledge base upload")
      .annotate(
        OpenApi.Description,
        "Makes a running upload `Canceled`, with its unfinished artifacts; an upload that has already ended answers `canceled: false`."
      )
  )
  .add(
    HttpApiEndpoint.post("uploadFiles", "/v4/knowledge-bases/:knowledge_base_id/upload_files")
      .setPath(KnowledgeBasePath)
      .setPayload(HttpApiSchema.MultipartStream(UploadFilesForm))
      .addSuccess(UploadFilesResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Upload files to a knowledge base")
      .annotate(
        OpenApi.Description,
        "Uploads files (multipart/form-data, within the body size limit): one upload of them all, run as any upload; each file an artifact `local://<name>`."
      )
  )
  .annotate(OpenApi.Title, "Knowledge base uploads")
  .annotate(
    OpenApi.Description,
    "Uploads into a knowledge base: a data source's files, posted files or given chunks, chunked and embedded in the background."
  )
{}
