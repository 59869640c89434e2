import { HttpServerResponse } from "@effect/platform"
import { cursorOf } from "@platform-kit/schema"
import { Chunk, Clock, Effect, Layer, Option, Stream } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import { FileMaxBytes } from "../config.js"
import { SecretBox } from "../credentials/SecretBox.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import type { ImplementGroup } from "../http/groups.js"
import { freshIdentity } from "../platform/Ids.js"
import { ObjectStore } from "../platform/ObjectStore.js"
import { BuildsRepo, contextObject, isFinal, publicBuild, sealArgs, type StoredBuild } from "./BuildsRepo.js"
import { readBuildForm } from "./form.js"
import { ImageBuilder, SimulatedImageBuilder } from "./ImageBuilder.js"

/**
 * How often a log stream reads the lines written since its last read, measured on the wall clock
 * whatever clock the program runs on (a test's too): the database changes in real time.
 */
const pollMillis = 200
const wallClock = Clock.make()
const pause = Effect.withClock(Effect.sleep(pollMillis), wallClock)

/** The most lines one read of a log stream takes. */
const linesPerRead = 500

const frame = (line: string) => `data: ${JSON.stringify({ line })}\n\n`

/** A comment sent after 15 s without a line. */
const ping = ": ping\n\n"
const pingAfterReads = 15_000 / pollMillis

export const BuildsHttp = (group: ImplementGroup) =>
  group("builds", (handlers) =>
    Effect.gen(function*() {
      const repo = yield* BuildsRepo
      const store = yield* ObjectStore
      const builder = yield* ImageBuilder
      const lifecycles = yield* Lifecycles
      const box = yield* SecretBox
      const maxBytes = yield* FileMaxBytes

      const owned = (id: string) => Effect.flatMap(callerAccounts, (accounts) => repo.get(id, accounts))

      const create = (parts: Parameters<typeof readBuildForm>[0], queryAccount: string | undefined) =>
        Effect.gen(function*() {
          const [id, created_at] = yield* freshIdentity
          const object = contextObject(id)
          // the form first (the archive checked and written as it arrives): a request's shape is
          // checked before what it names (docs/decisions.md "Wire"); past it, a failure removes it
          const form = yield* readBuildForm(parts, store, object, maxBytes)
          return yield* Effect.gen(function*() {
            const fromForm = queryAccount === undefined && form.account_id !== undefined
            const account_id = yield* accountForWrite(queryAccount ?? form.account_id, [fromForm ? "body" : "query", "account_id"])
            const build: StoredBuild = {
              id,
              build_id: id,
              account_id,
              created_at,
              created_by: yield* createdByIdentity,
              image_name: form.image_name,
              image_tag: form.image_tag,
              image_url: builder.imageUrl({ account_id, image_name: form.image_name, image_tag: form.image_tag }),
              status: "queued",
              build_start_time: null,
              build_end_time: null,
              object: "agentex_cloud_build",
              sealed_build_args: yield* sealArgs(box, id, form.build_args),
              context_bytes: form.context_bytes,
              builder_from: null
            }
            const entity = { id, account_id }
            yield* repo.create(build, [`Build context received: ${form.context_bytes} bytes (a tar.gz); build queued`])
            // queued → running → success on the engine (builds/workflow.ts); a start that fails
            // leaves no build queued for nothing: it is failed, saying so (its context removed below)
            yield* lifecycles.start({ workflow: "ImageBuild", ...entity }).pipe(
              Effect.onError(() =>
                repo.advance(entity, "queued", (queued, now) => ({
                  build: { ...queued, status: "failed", build_end_time: now },
                  lines: ["Build failed: it could not be started on the workflow engine (the create answered an error)"]
                }))
              )
            )
            return publicBuild(build)
          }).pipe(Effect.onError(() => Effect.ignore(repo.bucket.remove(object))))
        })

      /**
       * The build's log as server-sent events: its lines from the first, then each as it is
       * written, until the build has ended. The status is read before the lines: a final status
       * is written with the last lines (BuildsRepo), so once it is seen, the lines read after it
       * are all there are.
       */
      const logs = (build: StoredBuild) => {
        /** The last line sent, whether the build has ended, the reads since the last frame. */
        type State = { readonly after: number; readonly done: boolean; readonly idle: number }
        const lines = Stream.unfoldChunkEffect({ after: -1, done: false, idle: 0 } as State, (state) =>
          state.done
            ? Effect.succeed(Option.none())
            : Effect.gen(function*() {
              const now = yield* repo.findById(build.id, [build.account_id])
              const final = Option.match(now, { onNone: () => true, onSome: (current) => isFinal(current.status) })
              const read = yield* repo.linesAfter(build.id, state.after, linesPerRead)
              const frames = read.map((each) => frame(each.line))
              // a comment after a silence (a proxy keeps the connection; the SDK skips it)
              const idle = read.length > 0 ? 0 : state.idle + 1
              if (idle >= pingAfterReads) frames.push(ping)
              if (read.length === 0 && !final) yield* pause
              const next: State = {
                after: read.at(-1)?.seq ?? state.after,
                done: final && read.length < linesPerRead,
                idle: idle >= pingAfterReads ? 0 : idle
              }
              return Option.some([Chunk.fromIterable(frames), next] as const)
            })
        )
        return HttpServerResponse.stream(Stream.encodeText(lines), {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
        })
      }

      return handlers
        .handle("create", ({ payload, urlParams }) => create(payload, urlParams.account_id))
        .handle("list", ({ urlParams }) =>
          Effect.gen(function*() {
            const accountIds = yield* accountsForRead(urlParams.account_id)
            const page = yield* repo.cursorPage({ accountIds, ...cursorOf(urlParams) })
            return { ...page, items: page.items.map(publicBuild) }
          }))
        .handle("get", ({ path }) => Effect.map(owned(path.build_id), publicBuild))
        .handle("cancel", ({ path }) =>
          Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.cancel(path.build_id, accounts), publicBuild)))
        .handle("logs", ({ path }) => Effect.map(owned(path.build_id), logs))
    })
  ).pipe(Layer.provide([BuildsRepo.Default, ObjectStore.Default, SimulatedImageBuilder, SecretBox.Live]))
