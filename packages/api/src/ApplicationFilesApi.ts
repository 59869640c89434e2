import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  ApplicationFile,
  ApplicationUploadFilesResponse,
  GenericDeleteResponse,
  Id,
  NotFound,
  UploadApplicationFilesForm,
  UploadApplicationFilesQuery,
  V4ListQuery,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const FilePath = Schema.Struct({ application_file_id: Id })

/**
 * Files for applications: the real SDK's `applications.upload_files`, and the kit's own reads of
 * what was uploaded (list, get, content, delete: not in the SDK).
 */
export class ApplicationFilesApi extends HttpApiGroup.make("applicationFiles")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("upload", "/v4/applications/upload-files")
      .setUrlParams(UploadApplicationFilesQuery)
      .setPayload(HttpApiSchema.MultipartStream(UploadApplicationFilesForm))
      .addSuccess(ApplicationUploadFilesResponse)
      .annotate(OpenApi.Summary, "Upload files for applications")
      .annotate(
        OpenApi.Description,
        "Uploads files (multipart/form-data, one part per file named `files[]` or `files`, within the body size limit) for `account_id` (query), each streamed into the object store; answers them as a bare array, in the order sent. No file is a 422; a failure stores nothing."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/application-files")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(ApplicationFile))
      .annotate(OpenApi.Summary, "List application files")
      .annotate(
        OpenApi.Description,
        "Lists the uploaded application files of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`). A kit extension: not in the SDK."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/application-files/:application_file_id")
      .setPath(FilePath)
      .addSuccess(ApplicationFile)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an application file")
      .annotate(
        OpenApi.Description,
        "Answers the uploaded application file; 404 when it is not in the caller's accounts. A kit extension: not in the SDK."
      )
  )
  .add(
    HttpApiEndpoint.get("content", "/v4/application-files/:application_file_id/content")
      .setPath(FilePath)
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Download an application file")
      .annotate(
        OpenApi.Description,
        "Answers the file's bytes as uploaded (`application/octet-stream`, streamed from the object store, its name in `content-disposition`); 404 when it is not in the caller's accounts. A kit extension: not in the SDK."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/application-files/:application_file_id")
      .setPath(FilePath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete an application file")
      .annotate(
        OpenApi.Description,
        "Deletes the uploaded application file and its bytes; 404 when it is not in the caller's accounts. A kit extension: not in the SDK."
      )
  )
  .annotate(OpenApi.Title, "Application files")
  .annotate(OpenApi.Description, "Files uploaded for applications, kept in the object store: what document nodes read.")
{}
