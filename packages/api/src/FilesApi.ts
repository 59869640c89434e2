import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  BetaFile,
  BetaFileDelete,
  BetaFileList,
  BetaFileListQuery,
  FileDeleteResponse,
  FileImportFromCloudPartial,
  FileImportFromCloudRequest,
  FileImportFromCloudResponse,
  FileListQuery,
  Id,
  NotFound,
  PlatformFile,
  UpdateFile,
  UploadFileForm,
  UploadFileQuery,
  V5List
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const FilePath = Schema.Struct({ file_id: Id })

/** The bytes of a file, as uploaded, of any type: the response's content type is the file's `mime_type`. */
const FileBytes = HttpApiSchema.Uint8Array({ contentType: "*/*" })

const uploadDescription = (answer: string) =>
  `Uploads one file (multipart/form-data, a part named \`file\`), streamed into the object store with its MD5 and size; within the files' size limit (\`PLATFORM_FILE_MAX_BYTES\`, default 25 MiB), not the general body limit: a larger file is a 413 and nothing is stored. Identical bytes of an account are stored once. \`account_id\` (query or form field; else the selected or only account) names the account. Answers ${answer}.`

/** v5 files (the SDK's `files`, `files.content`): uploads kept in the object store. */
export class FilesApi extends HttpApiGroup.make("files")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/files")
      .setUrlParams(UploadFileQuery)
      .setPayload(HttpApiSchema.MultipartStream(UploadFileForm))
      .addSuccess(PlatformFile)
      .annotate(OpenApi.Summary, "Upload a file")
      .annotate(OpenApi.Description, uploadDescription("the file"))
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/files")
      .setUrlParams(FileListQuery)
      .addSuccess(V5List(PlatformFile))
      .annotate(OpenApi.Summary, "List files")
      .annotate(
        OpenApi.Description,
        "Lists the files of the caller's accounts (`account_id` narrows to one) with the v5 cursor (`limit`, `starting_after`, `ending_before`, `sort_by` `created_at`, `filename` or `size`, `sort_order`); `filename` matches a case-insensitive part of the name."
      )
  )
  .add(
    HttpApiEndpoint.post("importFromCloud", "/v5/files/cloud_imports")
      .setPayload(FileImportFromCloudRequest)
      .addSuccess(FileImportFromCloudResponse)
      .addSuccess(FileImportFromCloudPartial)
      .annotate(OpenApi.Summary, "Import files from the object store")
      .annotate(
        OpenApi.Description,
        "Makes a file of each object named (`container`: a bucket of the kit's object store, `filepath`: the object's name in it, `filename` and `file_type` the file's name and MIME type), each on its own, its bytes copied into the files' store. One result per object, in order: 207 when some were imported and some not, else 200 (`FAILED_FILE_DOES_NOT_EXIST`, `FAILED_INVALID_PERMISSIONS`, `FAILED_UNKNOWN_ERROR`)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/files/:file_id")
      .setPath(FilePath)
      .addSuccess(PlatformFile)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a file")
      .annotate(OpenApi.Description, "Answers the file's metadata; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/files/:file_id")
      .setPath(FilePath)
      .setPayload(UpdateFile)
      .addSuccess(PlatformFile)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a file's tags")
      .annotate(OpenApi.Description, "Replaces the file's `tags` with those given (absent or `null`: unchanged); nothing else changes.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/files/:file_id")
      .setPath(FilePath)
      .addSuccess(FileDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a file")
      .annotate(
        OpenApi.Description,
        "Deletes the file for good (`{id, deleted: true, object: \"file\"}`); its bytes are removed once no other file of the account has the same."
      )
  )
  .add(
    HttpApiEndpoint.get("content", "/v5/files/:file_id/content")
      .setPath(FilePath)
      .addSuccess(FileBytes)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Download a file")
      .annotate(
        OpenApi.Description,
        "Answers the file's bytes exactly as uploaded, streamed, with the file's `mime_type` as content type and its name in `content-disposition`."
      )
  )
  .annotate(OpenApi.Title, "Files")
  .annotate(OpenApi.Description, "Uploaded files, their bytes in the object store (v5).")
{}

/** The v4 SDK's `beta.files`: the same files, in the v4 beta shapes. */
export class BetaFilesApi extends HttpApiGroup.make("betaFiles")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/beta/files")
      .setUrlParams(UploadFileQuery)
      .setPayload(HttpApiSchema.MultipartStream(UploadFileForm))
      .addSuccess(BetaFile)
      .annotate(OpenApi.Summary, "Upload a file (v4 beta)")
      .annotate(OpenApi.Description, uploadDescription("the file in the v4 beta shape"))
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/beta/files")
      .setUrlParams(BetaFileListQuery)
      .addSuccess(BetaFileList)
      .annotate(OpenApi.Summary, "List files (v4 beta)")
      .annotate(
        OpenApi.Description,
        "Lists the files of the caller's accounts (`account_id` narrows to one), newest first, with the cursor (`limit`, `starting_after`, `ending_before`)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/beta/files/:file_id")
      .setPath(FilePath)
      .addSuccess(BetaFile)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a file (v4 beta)")
      .annotate(OpenApi.Description, "Answers the file's metadata; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/beta/files/:file_id")
      .setPath(FilePath)
      .addSuccess(BetaFileDelete)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a file (v4 beta)")
      .annotate(OpenApi.Description, "Deletes the file for good, as `DELETE /v5/files/{file_id}` does.")
  )
  .add(
    HttpApiEndpoint.get("content", "/v4/beta/files/:file_id/content")
      .setPath(FilePath)
      .addSuccess(FileBytes)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Download a file (v4 beta)")
      .annotate(OpenApi.Description, "Answers the file's bytes exactly as uploaded (the SDK sends `Accept: application/binary`), as `GET /v5/files/{file_id}/content` does.")
  )
  .annotate(OpenApi.Title, "Files (v4 beta)")
  .annotate(OpenApi.Description, "The v4 beta view of the files (v5 `/v5/files`).")
{}
