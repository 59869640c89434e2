/**
 * The form of `POST /v4/knowledge-bases/{id}/upload_files` (docs/knowledge-bases.md "Uploads"),
 * read part by part: files under `files` (their bytes in memory: the body is within the server's
 * size limit), `chunking_strategy_config`, `data_source_config` and `tagging_information` as JSON
 * text, `force_reupload` as `true`/`false`. Every problem is reported at once, each at its field,
 * as a 422 of the contract's shape.
 */
import type { Multipart } from "@effect/platform"
import {
  ChunkingStrategyConfig,
  JsonObject,
  UploadTaggingInformation,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Cause, Effect, Either, ParseResult, Schema, Stream } from "effect"
import { toValidationIssues } from "../../http/issues.js"

/** A file posted with the form. */
export interface PostedFile {
  readonly name: string
  readonly content: Uint8Array
}

/** The form, read and checked. */
export interface UploadFilesForm {
  readonly files: ReadonlyArray<PostedFile>
  readonly chunking_strategy_config: typeof ChunkingStrategyConfig.Type
  /** The config as given, its `source` `LocalFile`. */
  readonly data_source_config: { readonly source: "LocalFile" } & Readonly<Record<string, unknown>>
  readonly force_reupload: boolean
  readonly tagging_information: UploadTaggingInformation | null
}

const issue = (field: string, msg: string, type: string, input: unknown) =>
  new ValidationIssue({ loc: ["body", field], msg, type, input })

const decodeJson = <A, I>(schema: Schema.Schema<A, I>, field: string, text: string | undefined, issues: Array<ValidationIssue>) => {
  if (text === undefined) {
    issues.push(issue(field, "Field required", "missing", null))
    return undefined
  }
  const decoded = ParseResult.decodeUnknownEither(Schema.parseJson(schema))(text, { errors: "all" })
  if (Either.isLeft(decoded)) {
    issues.push(...toValidationIssues(["body", field], decoded.left))
    return undefined
  }
  return decoded.right
}

/** Reads `parts` into the form, or fails with every problem found. */
export const readUploadFilesForm = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) =>
  Effect.gen(function*() {
    const fields = new Map<string, string>()
    const files: Array<PostedFile> = []
    yield* Stream.runForEach(parts, (part) =>
      part._tag === "Field"
        ? Effect.sync(() => void fields.set(part.key, part.value))
        : part.key === "files"
        ? Effect.map(part.contentEffect, (content) => void files.push({ name: part.name, content }))
        : Effect.void).pipe(
        // a body that is no form (JSON, a broken form) fails the parser, as a failure or a defect
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : Effect.fail(
            new ValidationError({
              detail: [issue("files", "Not a multipart/form-data body: send the files and fields as a form", "value_error", null)]
            })
          )
        )
      )
    const issues: Array<ValidationIssue> = []
    if (files.length === 0) issues.push(issue("files", "Field required: at least one file", "missing", null))
    const names = new Set<string>()
    for (const file of files) {
      if (file.name === "" || file.name.length > 255 || file.name.includes("/") || file.name.includes("\\") || file.name.includes("\0")) {
        issues.push(issue("files", `Not a file name: ${JSON.stringify(file.name)}`, "value_error", file.name))
      } else if (names.has(file.name)) {
        issues.push(issue("files", `Two files named ${file.name}`, "value_error", file.name))
      }
      names.add(file.name)
    }
    const chunking = decodeJson(ChunkingStrategyConfig, "chunking_strategy_config", fields.get("chunking_strategy_config"), issues)
    const config = decodeJson(JsonObject, "data_source_config", fields.get("data_source_config"), issues)
    const force = fields.get("force_reupload")
    if (force === undefined) issues.push(issue("force_reupload", "Field required", "missing", null))
    else if (!["true", "false", "True", "False", "1", "0"].includes(force)) {
      issues.push(issue("force_reupload", "Input should be a valid boolean", "bool_parsing", force))
    }
    const tagging = fields.has("tagging_information")
      ? decodeJson(UploadTaggingInformation, "tagging_information", fields.get("tagging_information"), issues)
      : null
    if (issues.length > 0) return yield* Effect.fail(new ValidationError({ detail: issues }))
    const form: UploadFilesForm = {
      files,
      chunking_strategy_config: chunking!,
      data_source_config: { ...config!, source: "LocalFile" },
      force_reupload: force === "true" || force === "True" || force === "1",
      tagging_information: tagging ?? null
    }
    return form
  })
