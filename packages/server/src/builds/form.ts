/**
 * The form of `POST /v5/builds` (docs/builds.md "Starting a build"): its `context_archive` part
 * checked as a tar.gz (archive.ts) while it is streamed into the builds' bucket, never whole in
 * memory; the fields `image_name`, `image_tag`, `build_args` (a JSON object, sent as a string; its
 * values made strings) and `account_id`. The archive is held to `PLATFORM_FILE_MAX_BYTES` (as a
 * file upload), the whole form to that and `formAllowanceBytes`: past either, a 413. An archive
 * that is not a tar.gz fails its write: a 422, nothing stored. Any other problem of the form is a
 * 422 of the contract's shape, every problem said; whatever fails, nothing is left in the store.
 * The parts are read by the uploads' reader (files/multipart.ts), as a file upload's are.
 */
import type { Multipart } from "@effect/platform"
import { ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Stream } from "effect"
import { formAllowanceBytes, isFormError, readUploadForm, storeFailuresAsDefects, TooLarge } from "../files/multipart.js"
import type { StreamedBodyRoute } from "../http/middleware.js"
import type { ObjectStore } from "../platform/ObjectStore.js"
import { ArchiveInvalid, tarGzReader } from "./archive.js"
import { buildsBucket } from "./BuildsRepo.js"

/** The most a text field may hold. */
const maxFieldLength = 64 * 1024

const tooLargeDetail = (maxBytes: number) => `Build context larger than ${maxBytes} bytes (PLATFORM_FILE_MAX_BYTES)`

/** The route, with the files' limit instead of the general body limit (http/middleware.ts). */
export const buildUploadRoutes = (maxBytes: number): ReadonlyArray<StreamedBodyRoute> => [{
  method: "POST",
  path: "/v5/builds",
  maxBytes: maxBytes + formAllowanceBytes,
  detail: tooLargeDetail(maxBytes)
}]

/** The longest image name (a plain string, as the platform takes it: any other is kept as sent). */
const maxImageNameLength = 255
/** A tag: a letter, digit or `_`, then up to 127 of those, `.` or `-`. */
const imageTagPattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/

/** The form, read and checked. */
export interface BuildForm {
  readonly image_name: string
  readonly image_tag: string
  readonly build_args: Readonly<Record<string, string>>
  readonly account_id: string | undefined
  /** The archive's size, as uploaded and stored. */
  readonly context_bytes: number
}

const issue = (field: string, msg: string, type: string, input: unknown) =>
  new ValidationIssue({ loc: ["body", field], msg, type, input })

const notAForm = () =>
  new ValidationError({
    detail: [issue("context_archive", "Not a multipart/form-data body: send the build context as a part named `context_archive`", "value_error", null)]
  })

/**
 * `build_args` read: a JSON object, its values made strings (a string as it is, any other value
 * as its JSON text: `1`, `true`; the platform passes them on as it got them), or the issue.
 */
const buildArgsOf = (text: string): { readonly args: Record<string, string> } | { readonly issue: ValidationIssue } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { issue: issue("build_args", "Not valid JSON: build_args is a JSON object, sent as a string", "json_invalid", text.slice(0, 100)) }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { issue: issue("build_args", "build_args must be a JSON object", "dict_type", text.slice(0, 100)) }
  }
  return {
    args: Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]))
  }
}

/**
 * Reads `parts`, the archive checked and written to the builds' bucket as object `object`; fails
 * with a 422 for every problem of the form, a 413 past the limits, and nothing stored. The caller
 * removes `object` if it fails later.
 */
export const readBuildForm = (
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  store: ObjectStore,
  object: string,
  maxBytes: number
) =>
  Effect.gen(function*() {
    const bucket = store.own(buildsBucket)
    const issues: Array<ValidationIssue> = []
    const fields = new Map<string, string>()
    let archives = 0
    let written: number | undefined

    const onArchive = (part: Multipart.File) =>
      Effect.gen(function*() {
        archives += 1
        if (archives > 1) return yield* Stream.runDrain(part.content)
        const reader = tarGzReader()
        let size = 0
        const checked = Stream.mapEffect(part.content, (chunk): Effect.Effect<Uint8Array, TooLarge | ArchiveInvalid> => {
          size += chunk.length
          if (size > maxBytes) return Effect.fail(new TooLarge())
          return Effect.as(reader.feed(chunk), chunk)
        }).pipe(
          // the archive read to its end (its last entry whole) before the object is kept
          Stream.concat(Stream.execute(reader.finish))
        )
        yield* storeFailuresAsDefects(
          Effect.ensuring(bucket.write(object, checked), reader.close),
          (error) => isFormError(error) || error._tag === "ArchiveInvalid"
        )
        written = size
      })

    const removeWritten = Effect.suspend(() => written === undefined ? Effect.void : Effect.ignore(bucket.remove(object)))

    yield* readUploadForm({
      parts,
      maxFileBytes: maxBytes,
      tooLargeDetail: tooLargeDetail(maxBytes),
      notAForm,
      // an archive that is not a tar.gz: the form's fault, said at its part
      invalid: (failure) =>
        failure instanceof ArchiveInvalid ? new ValidationError({ detail: [issue("context_archive", failure.reason, "value_error", null)] }) : undefined,
      removeWritten,
      onPart: (part) => {
        if (part._tag === "File") return part.key === "context_archive" ? onArchive(part) : Stream.runDrain(part.content)
        if (part.key === "context_archive") {
          if (issues.some((each) => each.msg.startsWith("Expected a file"))) return Effect.void
          return Effect.sync(() =>
            void issues.push(issue("context_archive", "Expected a file (a part with a file name), got a text field", "value_error", part.value.slice(0, 100)))
          )
        }
        if (part.value.length > maxFieldLength) {
          return Effect.sync(() => void issues.push(issue(part.key, `At most ${maxFieldLength} characters`, "string_too_long", part.value.slice(0, 100))))
        }
        return Effect.sync(() => void fields.set(part.key, part.value))
      }
    })

    if (archives === 0 && !issues.some((each) => each.loc[1] === "context_archive")) {
      issues.push(issue("context_archive", "Field required", "missing", null))
    }
    if (archives > 1) issues.push(issue("context_archive", `One build context is read, ${archives} were sent`, "value_error", null))
    const image_name = fields.get("image_name")
    if (image_name === undefined) issues.push(issue("image_name", "Field required", "missing", null))
    else if (image_name === "") issues.push(issue("image_name", "String should have at least 1 character", "string_too_short", image_name))
    else if (image_name.length > maxImageNameLength) {
      issues.push(issue("image_name", `String should have at most ${maxImageNameLength} characters`, "string_too_long", image_name.slice(0, 100)))
    }
    const tag = fields.get("image_tag")
    if (tag !== undefined && !imageTagPattern.test(tag)) {
      issues.push(issue("image_tag", "An image tag: letters, digits, '_', '.' and '-' (not first), at most 128", "string_pattern_mismatch", tag.slice(0, 100)))
    }
    const argsText = fields.get("build_args")
    const args = argsText === undefined ? { args: {} } : buildArgsOf(argsText)
    if ("issue" in args) issues.push(args.issue)

    if (issues.length > 0 || written === undefined || image_name === undefined || "issue" in args) {
      yield* removeWritten
      return yield* Effect.fail(new ValidationError({ detail: issues }))
    }
    const form: BuildForm = {
      image_name,
      image_tag: tag ?? "latest",
      build_args: args.args,
      account_id: fields.get("account_id"),
      context_bytes: written
    }
    return form
  })
