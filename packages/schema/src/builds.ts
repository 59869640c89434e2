/**
 * Image builds (v5 `/v5/builds`, the SDK's `build`; docs/builds.md): a build context uploaded as a
 * tar.gz, built into an image on the engine (simulated: the kit has no container engine), its log
 * lines streamed as server-sent events.
 */
import { Schema } from "effect"
import { DateTimeString, Id, Identity, Nullable, V5PageQuery } from "./common.js"

/**
 * A build's status (a free string in the SDK; the set here is the newer platform's, lower case):
 * `queued` when created, `running` once the builder took it, then `success`, `failed` or
 * `cancelled`. The last three are final.
 */
export const BuildStatus = Schema.Literal("queued", "running", "success", "failed", "cancelled").annotations({
  identifier: "BuildStatus"
})
export type BuildStatus = typeof BuildStatus.Type

/** The statuses a build ends in: its log stream ends with them. */
export const finalBuildStatuses: ReadonlyArray<BuildStatus> = ["success", "failed", "cancelled"]

/**
 * A build (the SDK's `BuildCreateResponse`, `BuildRetrieveResponse`, `BuildListResponse` and
 * `BuildCancelResponse`, one shape). `id` is the kit's addition, equal to `build_id`: the SDK's
 * list paging takes its cursor from `id`. `image_url` is where the image is pushed (known from the
 * create; there once `success`); `build_start_time` is set when it starts running,
 * `build_end_time` when it ends.
 */
export class Build extends Schema.Class<Build>("Build")({
  id: Id,
  build_id: Id,
  account_id: Id,
  created_at: DateTimeString,
  created_by: Identity,
  image_name: Schema.String,
  image_tag: Schema.String,
  image_url: Schema.String,
  status: BuildStatus,
  build_start_time: Nullable(DateTimeString),
  build_end_time: Nullable(DateTimeString),
  object: Schema.Literal("agentex_cloud_build")
}) {}

/** `GET /v5/builds`: the v5 cursor (sorted by `created_at` or `image_name`) and `account_id`. */
export const BuildListQuery = Schema.Struct({
  ...V5PageQuery(["created_at", "image_name"]),
  account_id: Schema.optionalWith(Id, { exact: true })
})

/** The query of `POST /v5/builds`: the account the build is for (else the selected or only account). */
export const CreateBuildQuery = Schema.Struct({
  account_id: Schema.optionalWith(Id, { exact: true })
})

/**
 * The form of `POST /v5/builds` (multipart/form-data), as the OpenAPI document shows it: read part
 * by part by the server, the archive checked and streamed into the object store as it arrives.
 */
export const CreateBuildForm = Schema.Struct({
  context_archive: Schema.String.annotations({
    description: "the build context: a tar.gz archive (a part with a file name) holding a `Dockerfile` at its root"
  }),
  image_name: Schema.String.annotations({ description: "the image's repository name (a string, 1 to 255 characters)" }),
  image_tag: Schema.optionalWith(Schema.String, { exact: true }).annotations({ description: "the tag (default `latest`)" }),
  build_args: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "the build arguments: a JSON object, as a string (a value that is not a string is taken as its JSON text); never logged, stored sealed"
  })
}).annotations({ identifier: "CreateBuildForm" })

/** One line of a build's log: a `data:` frame of `GET /v5/builds/{build_id}/logs` (the SDK's `StreamChunk`). */
export class BuildLogLine extends Schema.Class<BuildLogLine>("BuildLogLine")({
  line: Schema.String
}) {}
