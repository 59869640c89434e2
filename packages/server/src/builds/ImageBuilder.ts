/**
 * The seam between a build and what builds images (docs/builds.md "The builder"): `ImageBuilder`
 * names the image a build makes (`imageUrl`) and builds it (`build`), a stream of log lines that
 * ends when the image is pushed, or fails with the reason. The build's workflow (workflow.ts)
 * writes the lines and the outcome; it stops pulling the stream when the build is cancelled.
 *
 * `SimulatedImageBuilder` is the kit's, and it is a simulation, said in its log: it reads the
 * context from the object store (every entry, checked: archive.ts), walks the Dockerfile at its
 * root, checks what it can (the Dockerfile is there, starts with `FROM`, knows its instructions,
 * COPY/ADD sources are in the context), and writes for each instruction what a real builder would
 * do. Nothing is pulled, run, built or pushed. A layer over a container engine (BuildKit, kaniko)
 * would replace this one in `BuildsWorkflows` and `BuildsHttp`: the same two operations.
 */
import { Context, Data, Effect, Layer, Stream } from "effect"
import { type ArchiveSummary, tarGzReader } from "./archive.js"

/** A build the builder is asked to run. */
export interface BuildJob {
  readonly build_id: string
  readonly account_id: string
  readonly image_name: string
  readonly image_tag: string
  readonly image_url: string
  readonly build_args: Readonly<Record<string, string>>
  /** The build context (the tar.gz as uploaded), streamed from the object store. */
  readonly context: Stream.Stream<Uint8Array, unknown>
  /** Its size, in bytes. */
  readonly context_bytes: number
}

/** The build did not make an image, and why (the last log line says it). */
export class BuildFailed extends Data.TaggedError("BuildFailed")<{ readonly reason: string }> {}

export class ImageBuilder extends Context.Tag("@platform-kit/server/ImageBuilder")<ImageBuilder, {
  /** Where the image of `image_name:image_tag` built for `account_id` is pushed. */
  readonly imageUrl: (image: { readonly account_id: string; readonly image_name: string; readonly image_tag: string }) => string
  /** Builds and pushes the image of `job`: its log lines as they come; fails when it cannot. */
  readonly build: (job: BuildJob) => Stream.Stream<string, BuildFailed>
}>() {}

/** The registry the simulated builder names its images in: a name only, nothing answers there. */
export const simulatedRegistry = "registry.platform-kit.local"

/** The Dockerfile instructions a builder knows. */
const instructions = new Set([
  "FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT",
  "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"
])

interface Instruction {
  readonly keyword: string
  readonly args: string
}

/** The Dockerfile's instructions: comments and blank lines dropped, `\` continuations joined. */
export const parseDockerfile = (text: string): Array<Instruction> => {
  const parsed: Array<Instruction> = []
  let pending = ""
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (pending === "" && (line === "" || line.startsWith("#"))) continue
    if (pending !== "" && line.startsWith("#")) continue
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1).trim()} `
      continue
    }
    const whole = (pending + line).trim()
    pending = ""
    if (whole === "") continue
    const space = whole.search(/\s/)
    parsed.push(space === -1
      ? { keyword: whole.toUpperCase(), args: "" }
      : { keyword: whole.slice(0, space).toUpperCase(), args: whole.slice(space).trim() })
  }
  if (pending.trim() !== "") {
    const whole = pending.trim()
    const space = whole.search(/\s/)
    parsed.push({ keyword: (space === -1 ? whole : whole.slice(0, space)).toUpperCase(), args: space === -1 ? "" : whole.slice(space).trim() })
  }
  return parsed
}

/** `$NAME` and `${NAME}` of `values` in `text`; others left as written. */
const substitute = (text: string, values: ReadonlyMap<string, string>) =>
  text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, braced, bare) => values.get(braced ?? bare) ?? whole)

/** The sources of a COPY or ADD (flags dropped, the JSON form read), the destination left out. */
const copySources = (args: string): { readonly sources: ReadonlyArray<string>; readonly fromStage: boolean } => {
  const words = args.split(/\s+/)
  const fromStage = words.some((word) => word.startsWith("--from="))
  const rest = words.filter((word) => !word.startsWith("--")).join(" ")
  let parts: Array<string>
  if (rest.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(rest)
      parts = Array.isArray(parsed) ? parsed.map(String) : []
    } catch {
      parts = rest.split(/\s+/)
    }
  } else {
    parts = rest.split(/\s+/).filter((word) => word !== "")
  }
  return { sources: parts.slice(0, -1), fromStage }
}

/** Whether the context has `source` (a file, or a folder of it); globs and URLs are taken as found. */
const inContext = (source: string, summary: ArchiveSummary, names: ReadonlySet<string>) => {
  if (/[*?[]/.test(source) || /^[a-z]+:\/\//i.test(source) || !summary.allNamed) return true
  const name = source.replace(/^(\.\/|\/)+/, "").replace(/\/+$/, "")
  if (name === "" || name === ".") return true
  if (names.has(name)) return true
  const folder = `${name}/`
  return summary.names.some((each) => each.startsWith(folder))
}

/** What a real builder would do for one instruction (the line after its step). */
const wouldDo = (keyword: string, args: string, summary: ArchiveSummary) => {
  switch (keyword) {
    case "FROM":
      return `would pull the base image ${args.split(/\s+/)[0]}`
    case "RUN":
      return `would run in a container of the image so far: ${args}`
    case "COPY":
    case "ADD":
      return `would copy from the build context (${summary.files} files, ${summary.fileBytes} bytes) into a new layer`
    case "CMD":
      return "would set the image's default command"
    case "ENTRYPOINT":
      return "would set the image's entrypoint"
    case "ARG":
      return "would take the build argument"
    default:
      return `would set the image's ${keyword.toLowerCase()}`
  }
}

/** The simulated build's log lines and, if it fails, why (pure: the same job gives the same lines). */
export const simulatedLog = (job: BuildJob, summary: ArchiveSummary): { readonly lines: Array<string>; readonly failure?: string } => {
  const lines: Array<string> = [
    `Build context: ${summary.files} files and ${summary.directories} folders, ${summary.fileBytes} bytes unpacked (${job.context_bytes} bytes as uploaded)`
  ]
  if (summary.dockerfile === undefined) return { lines, failure: "The build context has no Dockerfile at its root" }
  const steps = parseDockerfile(summary.dockerfile)
  if (steps.length === 0) return { lines, failure: "The Dockerfile has no instructions" }
  const unknown = steps.find((step) => !instructions.has(step.keyword))
  if (unknown !== undefined) return { lines, failure: `The Dockerfile has an unknown instruction: ${unknown.keyword}` }
  const first = steps.find((step) => step.keyword !== "ARG")
  if (first?.keyword !== "FROM") return { lines, failure: "The Dockerfile must start with FROM (after ARGs)" }
  const names = new Set(summary.names)
  const values = new Map<string, string>()
  const consumed = new Set<string>()
  lines.push(`Dockerfile: ${steps.length} instructions`)
  for (const [index, step] of steps.entries()) {
    if (step.keyword === "ARG") {
      const [name = "", ...defaults] = step.args.split("=")
      const key = name.trim()
      const given = job.build_args[key]
      if (given !== undefined) consumed.add(key)
      const value = given ?? (defaults.length > 0 ? defaults.join("=") : undefined)
      if (value !== undefined) values.set(key, value)
    } else if (step.keyword === "ENV") {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)[= ](.*)$/.exec(step.args)
      if (match !== null) values.set(match[1]!, substitute(match[2]!.replace(/^"(.*)"$/, "$1"), values))
    }
    // written as in the Dockerfile: a build argument's value (a token, a password) is never in the
    // log, which anyone who can read the build reads; the values serve the checks only
    lines.push(`Step ${index + 1}/${steps.length} : ${step.keyword} ${step.args}`.trimEnd())
    if (step.keyword === "COPY" || step.keyword === "ADD") {
      const { sources, fromStage } = copySources(substitute(step.args, values))
      const written = copySources(step.args).sources
      const missing = fromStage ? -1 : sources.findIndex((source) => !inContext(source, summary, names))
      if (missing !== -1) {
        return { lines, failure: `${step.keyword} failed: ${written[missing] ?? "a source"} is not in the build context` }
      }
    }
    lines.push(` ---> ${wouldDo(step.keyword, step.args, summary)} (simulated)`)
  }
  const unused = Object.keys(job.build_args).filter((key) => !consumed.has(key))
  if (unused.length > 0) lines.push(`[Warning] One or more build-args [${unused.join(" ")}] were not consumed`)
  lines.push(`Would tag the image as ${job.image_url} and push it (simulated: nothing was built or pushed)`)
  return { lines }
}

/** Reads the job's context (archive.ts): its summary, or the build's failure. */
const readContext = (job: BuildJob) =>
  Effect.suspend(() => {
    const reader = tarGzReader()
    return Effect.ensuring(readWith(job, reader), reader.close)
  })

const readWith = (job: BuildJob, reader: ReturnType<typeof tarGzReader>) =>
  Effect.gen(function*() {
    yield* Stream.runForEach(job.context, reader.feed).pipe(
      Effect.catchAll((error) =>
        Effect.fail(new BuildFailed({
          reason: (error as { readonly _tag?: string })._tag === "ArchiveInvalid"
            ? (error as { readonly reason: string }).reason
            : "The build context could not be read from the object store"
        }))
      )
    )
    return yield* Effect.mapError(reader.finish, (error) => new BuildFailed({ reason: error.reason }))
  })

/** The kit's builder: a simulation (see above). */
export const SimulatedImageBuilder = Layer.succeed(ImageBuilder, {
  imageUrl: ({ account_id, image_name, image_tag }) => `${simulatedRegistry}/${account_id}/${image_name}:${image_tag}`,
  build: (job) =>
    Stream.unwrap(Effect.map(readContext(job), (summary) => {
      const { lines, failure } = simulatedLog(job, summary)
      const logged = Stream.fromIterable(lines)
      return failure === undefined ? logged : Stream.concat(logged, Stream.fail(new BuildFailed({ reason: failure })))
    }))
})
