import { SqlClient } from "@effect/sql"
import { Build, type BuildStatus, finalBuildStatuses, type NotFound } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import type { SecretBoxService } from "../credentials/SecretBox.js"
import type { LifecycleEntity } from "../engine/Lifecycles.js"
import { nowIso } from "../platform/Ids.js"
import { ObjectStore } from "../platform/ObjectStore.js"
import { makeDocuments } from "../sql/documents.js"
import { lockRow } from "../sql/rowLock.js"

/** The bucket of the store's own (`ObjectStore.own`) that holds the build contexts. */
export const buildsBucket = "builds"

/** The object of build `build_id`'s context (build ids are fresh UUIDs: one object each). */
export const contextObject = (build_id: string) => `contexts/${build_id}.tar.gz`

/** The longest log line kept (a longer one is cut, marked with `…`). */
const maxLineLength = 4096

/**
 * A build as stored: the resource, its build arguments sealed (`sealArgs`: they may hold secrets,
 * and are never answered), the size of its context, and the number of its last log line before
 * the builder's (`builder_from`, set when it starts running: the lines after it are the
 * builder's, replaced if the builder runs again after a restart).
 */
export const StoredBuild = Schema.Struct({
  ...Build.fields,
  sealed_build_args: Schema.String,
  context_bytes: Schema.Int,
  builder_from: Schema.NullOr(Schema.Int)
})
export type StoredBuild = typeof StoredBuild.Type

/** The build as `/v5/builds` answers it. */
export const publicBuild = ({ sealed_build_args: _, context_bytes: __, builder_from: ___, ...build }: StoredBuild) => new Build(build, true)

/** Build `build_id`'s arguments sealed (credentials/SecretBox.ts), bound to the build. */
export const sealArgs = (box: SecretBoxService, build_id: string, args: Readonly<Record<string, string>>) =>
  box.encrypt(JSON.stringify(args), `build:${build_id}`)

/** The arguments of `build`, opened (for its builder only). */
export const openArgs = (box: SecretBoxService, build: StoredBuild) =>
  Effect.map(
    box.decrypt(build.sealed_build_args, `build:${build.id}`),
    (text) => JSON.parse(text) as Readonly<Record<string, string>>
  )

export const isFinal = (status: BuildStatus) => finalBuildStatuses.includes(status)

/** One line of a build's log, numbered. */
export interface LogLine {
  readonly seq: number
  readonly line: string
}

const cut = (line: string) => (line.length > maxLineLength ? `${line.slice(0, maxLineLength - 1)}…` : line)

/**
 * The builds and their log lines. Every change of a build runs in a transaction holding its row
 * (`lockRow`) and writes its log lines in the same transaction, numbered after the last: a reader
 * that sees a final status has every line of the build (the log stream reads the status, then the
 * lines).
 */
export class BuildsRepo extends Effect.Service<BuildsRepo>()("@platform-kit/server/BuildsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "builds",
      label: "Build",
      schema: StoredBuild,
      columns: (build) => ({
        id: build.id,
        account_id: build.account_id,
        created_at: build.created_at,
        image_name: build.image_name,
        status: build.status
      })
    })
    const bucket = (yield* ObjectStore).own(buildsBucket)

    /** Appends `lines` to build `build_id`'s log (in the caller's transaction); answers the last number. */
    const appendLines = (build_id: string, lines: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ n: number | null }>`SELECT MAX(seq) AS n FROM build_logs WHERE build_id = ${build_id}`
        let seq = row?.n === null || row?.n === undefined ? -1 : Number(row.n)
        if (lines.length === 0) return seq
        const rows = lines.map((line) => ({ build_id, seq: ++seq, line: cut(line) }))
        yield* sql`INSERT INTO build_logs ${sql.insert(rows)}`
        return seq
      }).pipe(Effect.orDie)

    /** Stores `build` with its first log lines; answers it. */
    const create = (build: StoredBuild, lines: ReadonlyArray<string>) =>
      documents.transaction(Effect.gen(function*() {
        yield* documents.insert(build)
        yield* appendLines(build.id, lines)
        return build
      }))

    /**
     * Moves the build of a lifecycle as `change` says (given the time), with its log `lines`, in
     * one transaction holding its row, if it is in `from` now; answers the build as it is then
     * (none when gone). A step run again, or one of a build cancelled meanwhile, moves nothing.
     */
    const advance = (
      entity: LifecycleEntity,
      from: BuildStatus,
      change: (current: StoredBuild, now: string) => { readonly build: StoredBuild; readonly lines: ReadonlyArray<string> }
    ): Effect.Effect<Option.Option<StoredBuild>> =>
      documents.transaction(Effect.gen(function*() {
        yield* lockRow(sql, "builds", entity.id, [entity.account_id])
        const found = yield* documents.findById(entity.id, [entity.account_id])
        if (Option.isNone(found) || found.value.status !== from) return found
        const { build, lines } = change(found.value, yield* nowIso)
        const last = yield* appendLines(build.id, lines)
        // the builder's lines come after those of the start
        const next = build.status === "running" && build.builder_from === null ? { ...build, builder_from: last } : build
        yield* documents.update(next)
        return Option.some(next)
      }))

    /**
     * The builder's `lines` of the build of `entity`, appended while it is `running`; answers
     * whether it still is (false: cancelled or gone, the builder stops).
     */
    const appendWhileRunning = (entity: LifecycleEntity, lines: ReadonlyArray<string>) =>
      documents.transaction(Effect.gen(function*() {
        yield* lockRow(sql, "builds", entity.id, [entity.account_id])
        const found = yield* documents.findById(entity.id, [entity.account_id])
        if (Option.isNone(found) || found.value.status !== "running") return false
        yield* appendLines(entity.id, lines)
        return true
      }))

    /**
     * The lines after `builder_from` of a running build (those of a builder cut short by a
     * restart, which runs again), removed; answers the build when it is running.
     */
    const forBuilder = (entity: LifecycleEntity) =>
      documents.transaction(Effect.gen(function*() {
        yield* lockRow(sql, "builds", entity.id, [entity.account_id])
        const found = yield* documents.findById(entity.id, [entity.account_id])
        if (Option.isNone(found) || found.value.status !== "running") return Option.none<StoredBuild>()
        const from = found.value.builder_from ?? -1
        yield* Effect.orDie(sql`DELETE FROM build_logs WHERE build_id = ${entity.id} AND seq > ${from}`)
        return found
      }))

    /**
     * Removes build `build_id`'s context from the store, once the build has ended (the workflow's
     * last step, and a cancel); one already gone is no matter. A store that fails is logged: the
     * build has ended whatever happens to its context.
     */
    const removeContext = (build_id: string) =>
      bucket.remove(contextObject(build_id)).pipe(
        Effect.catchTag("ObjectNotFound", () => Effect.void),
        Effect.catchAll((error) => Effect.logWarning(`The context of build ${build_id} could not be removed`, error))
      )

    /**
     * Cancels build `id` of one of `accountIds` (404 otherwise): a queued or running one is
     * `cancelled` at once, with its end time and a log line; one that has ended is answered as it is.
     * Its context is removed then (a builder reading it stops at its next lines: the build is not
     * running any more).
     */
    const cancel = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<StoredBuild, NotFound> =>
      documents.transaction(Effect.gen(function*() {
        yield* lockRow(sql, "builds", id, accountIds)
        const current = yield* documents.get(id, accountIds)
        if (isFinal(current.status)) return current
        const now = yield* nowIso
        yield* appendLines(id, [`Build cancelled (it was ${current.status})`])
        return yield* documents.update({ ...current, status: "cancelled", build_end_time: now })
      })).pipe(Effect.tap(() => removeContext(id)))

    /** Up to `limit` lines of build `build_id` after number `after`, in order. */
    const linesAfter = (build_id: string, after: number, limit: number): Effect.Effect<ReadonlyArray<LogLine>> =>
      Effect.map(
        Effect.orDie(sql<{ seq: number; line: string }>`SELECT seq, line FROM build_logs
          WHERE build_id = ${build_id} AND seq > ${after} ORDER BY seq LIMIT ${limit}`),
        (rows) => rows.map((row) => ({ seq: Number(row.seq), line: row.line }))
      )

    /** The builds whose lifecycle has work left when the engine starts: queued or running. */
    const unfinished: Effect.Effect<ReadonlyArray<LifecycleEntity>> = sql<{ id: string; account_id: string }>`
      SELECT id, account_id FROM builds WHERE ${sql.in("status", ["queued", "running"])}
      ORDER BY created_at, id`.pipe(Effect.orDie)

    return { ...documents, bucket, create, advance, appendWhileRunning, forBuilder, removeContext, cancel, linesAfter, unfinished } as const
  }),
  dependencies: [ObjectStore.Default]
}) {}
