import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Build, BuildListQuery, CreateBuildForm, CreateBuildQuery, Id, NotFound, V5List } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const BuildPath = Schema.Struct({ build_id: Id })

/** The answer of a build's log stream. */
const LogStream = HttpApiSchema.Text({ contentType: "text/event-stream" })

/** v5 image builds (the SDK's `build`): a build context built into an image, simulated (docs/builds.md). */
export class BuildsApi extends HttpApiGroup.make("builds")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/builds")
      .setUrlParams(CreateBuildQuery)
      .setPayload(HttpApiSchema.MultipartStream(CreateBuildForm))
      .addSuccess(Build)
      .annotate(OpenApi.Summary, "Start a build")
      .annotate(
        OpenApi.Description,
        "Takes a build context (multipart/form-data: the file part `context_archive`, a tar.gz with a `Dockerfile` at its root; fields `image_name`, `image_tag` (default `latest`), `build_args` (a JSON object, as a string)), checked and streamed into the object store as it arrives, within the files' size limit (`PLATFORM_FILE_MAX_BYTES`): an archive that is not a tar.gz is a 422, a larger one a 413, and nothing is stored. Answers the build, `queued`; it runs on the engine. The image build is simulated: the archive is read and its Dockerfile walked through, nothing is run, built or pushed."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/builds")
      .setUrlParams(BuildListQuery)
      .addSuccess(V5List(Build))
      .annotate(OpenApi.Summary, "List builds")
      .annotate(
        OpenApi.Description,
        "Lists the builds of the caller's accounts (`account_id` narrows to one) with the v5 cursor (`limit`, `starting_after`, `ending_before`, `sort_by` `created_at` or `image_name`, `sort_order`); each build has `id` (its `build_id`), which the SDK's paging reads."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/builds/:build_id")
      .setPath(BuildPath)
      .addSuccess(Build)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a build")
      .annotate(OpenApi.Description, "Answers the build with its current status; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.post("cancel", "/v5/builds/:build_id/cancel")
      .setPath(BuildPath)
      .addSuccess(Build, { status: 202 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Cancel a build")
      .annotate(
        OpenApi.Description,
        "Cancels a `queued` or `running` build: it is `cancelled` at once (its builder stops at its next log line). Answers 202 with the build as it is after; a build that has ended is answered as it is, unchanged."
      )
  )
  .add(
    HttpApiEndpoint.get("logs", "/v5/builds/:build_id/logs")
      .setPath(BuildPath)
      .addSuccess(LogStream)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Stream a build's log")
      .annotate(
        OpenApi.Description,
        "Server-sent events (`text/event-stream`): one `data: {\"line\": …}` frame per log line, from the first, as the build writes them; no `event:` lines and no `[DONE]`: the body ends when the build has ended (at once for an ended build); a `: ping` comment after 15 s without a line."
      )
  )
  .annotate(OpenApi.Title, "Builds")
  .annotate(OpenApi.Description, "Image builds from an uploaded build context (v5), simulated.")
{}
