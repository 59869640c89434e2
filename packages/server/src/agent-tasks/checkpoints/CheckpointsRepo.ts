import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import {
  CheckpointBlob,
  CheckpointListItem,
  CheckpointPendingWrite,
  CheckpointTupleResponse
} from "@platform-kit/schema"
import type { CheckpointPut, CheckpointPutWrites } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { writesTogetherOn } from "../../sql/writesTogether.js"
import { contains } from "../matching.js"

/** Where a thread's rows are: the thread (a task id), and its task's account. */
export interface Thread {
  readonly threadId: string
  readonly accountId: string
}

export interface CheckpointListRequest {
  readonly threadId: string
  /** Undefined: every namespace. */
  readonly ns: string | undefined
  readonly before: string | undefined
  readonly filter: Readonly<Record<string, unknown>> | undefined
  readonly limit: number
}

interface CheckpointRow {
  readonly thread_id: string
  readonly checkpoint_ns: string
  readonly checkpoint_id: string
  readonly parent_checkpoint_id: string | null
  readonly checkpoint: string
  readonly metadata: string
}

/** Bytes read back (a `Buffer` on both databases) as base64; null stays null. */
const base64Of = (bytes: Uint8Array | null): string | null =>
  bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")

/** How many rows a filtered list reads at a time, newest first, until it has `limit` that match. */
const filteredBatch = 200

/** How many (channel, version) pairs a blob read names: 2 parameters each, under SQLite's 999 with the thread's 2. */
const pairsPerRead = 400

/**
 * The `agent_task_checkpoint*` tables (migration.ts), as agentex's checkpoint repository writes
 * and reads them: blobs are immutable per (channel, version), a checkpoint put again keeps its
 * parent, writes are kept or replaced as the request says. Ids compare as text (byte-wise on
 * both databases): "latest" and "before" are the greatest id and the ids below one.
 */
export class CheckpointsRepo extends Effect.Service<CheckpointsRepo>()("@platform-kit/server/CheckpointsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const itemOf = (row: CheckpointRow) =>
      new CheckpointListItem({
        checkpoint: JSON.parse(row.checkpoint),
        checkpoint_id: row.checkpoint_id,
        checkpoint_ns: row.checkpoint_ns,
        metadata: JSON.parse(row.metadata),
        thread_id: row.thread_id,
        parent_checkpoint_id: row.parent_checkpoint_id
      }, true)

    /** The checkpoint, then its blobs and its writes, in one transaction; blobs already there are kept. */
    const put = (thread: Thread, request: CheckpointPut, ns: string) =>
      Effect.gen(function*() {
        const keys = { thread_id: thread.threadId, checkpoint_ns: ns }
        const blobs = (request.blobs ?? []).map((blob) => ({
          ...keys,
          channel: blob.channel,
          version: blob.version,
          account_id: thread.accountId,
          type: blob.type,
          blob: blob.blob === undefined ? null : Buffer.from(blob.blob, "base64")
        }))
        // a few hundred rows a statement: below SQLite's bound on parameters
        for (let start = 0; start < blobs.length; start += 500) {
          yield* sql`INSERT INTO agent_task_checkpoint_blobs ${sql.insert(blobs.slice(start, start + 500))}
            ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING`
        }
        yield* sql`INSERT INTO agent_task_checkpoints ${
          sql.insert({
            ...keys,
            checkpoint_id: request.checkpoint_id,
            account_id: thread.accountId,
            parent_checkpoint_id: request.parent_checkpoint_id ?? null,
            checkpoint: JSON.stringify(request.checkpoint),
            metadata: JSON.stringify(request.metadata ?? {})
          })
        } ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = excluded.checkpoint, metadata = excluded.metadata`
      }).pipe(writesTogetherOn(sql), Effect.orDie)

    /** Each write by (checkpoint, task, idx): replaced when `upsert`, else the one there kept. */
    const putWrites = (thread: Thread, request: CheckpointPutWrites, ns: string) =>
      Effect.gen(function*() {
        const rows = request.writes.map((write) => ({
          thread_id: thread.threadId,
          checkpoint_ns: ns,
          checkpoint_id: request.checkpoint_id,
          task_id: write.task_id,
          idx: write.idx,
          account_id: thread.accountId,
          channel: write.channel,
          type: write.type ?? null,
          blob: Buffer.from(write.blob, "base64"),
          task_path: write.task_path ?? ""
        }))
        const onConflict = request.upsert === true
          ? sql`DO UPDATE SET channel = excluded.channel, type = excluded.type, blob = excluded.blob`
          : sql`DO NOTHING`
        for (let start = 0; start < rows.length; start += 500) {
          yield* sql`INSERT INTO agent_task_checkpoint_writes ${sql.insert(rows.slice(start, start + 500))}
            ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${onConflict}`
        }
      }).pipe(writesTogetherOn(sql), Effect.orDie)

    /**
     * The checkpoint (the latest of the namespace when `checkpointId` is undefined), with the blobs
     * of the (channel, version) pairs of its `channel_versions` (versions compared as text) and its
     * writes by task and index.
     */
    const getTuple = (threadId: string, ns: string, checkpointId: string | undefined) =>
      Effect.gen(function*() {
        const where = sql.and([
          sql`thread_id = ${threadId}`,
          sql`checkpoint_ns = ${ns}`,
          ...(checkpointId === undefined ? [] : [sql`checkpoint_id = ${checkpointId}`])
        ])
        const [row] = yield* sql<CheckpointRow>`SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata
          FROM agent_task_checkpoints WHERE ${where} ORDER BY checkpoint_id DESC LIMIT 1`
        if (row === undefined) return Option.none()
        const item = itemOf(row)
        const versions = item.checkpoint.channel_versions
        const wanted = typeof versions === "object" && versions !== null && !Array.isArray(versions)
          ? new Map(Object.entries(versions as Record<string, unknown>).flatMap(([channel, version]) =>
            typeof version === "string" || typeof version === "number" ? [[channel, String(version)] as const] : []
          ))
          : new Map<string, string>()
        // only the wanted (channel, version) pairs are read (not every version of each channel, which
        // grows with the thread), `pairsPerRead` at a time: within SQLite's bound on parameters
        const pairs = [...wanted.entries()]
        const blobs: Array<{ channel: string; version: string; type: string; blob: Uint8Array | null }> = []
        for (let start = 0; start < pairs.length; start += pairsPerRead) {
          const chunk = pairs.slice(start, start + pairsPerRead)
          blobs.push(...(yield* sql<{ channel: string; version: string; type: string; blob: Uint8Array | null }>`
            SELECT channel, version, type, blob FROM agent_task_checkpoint_blobs
            WHERE thread_id = ${threadId} AND checkpoint_ns = ${ns} AND ${
            sql.or(chunk.map(([channel, version]) => sql`(channel = ${channel} AND version = ${version})`))
          }`))
        }
        blobs.sort((a, b) => a.channel < b.channel ? -1 : a.channel > b.channel ? 1 : 0)
        const writes = yield* sql<{ task_id: string; idx: number; channel: string; type: string | null; blob: Uint8Array }>`
          SELECT task_id, idx, channel, type, blob FROM agent_task_checkpoint_writes
          WHERE thread_id = ${threadId} AND checkpoint_ns = ${ns} AND checkpoint_id = ${row.checkpoint_id} ORDER BY task_id, idx`
        return Option.some(
          new CheckpointTupleResponse({
            ...item,
            blobs: blobs.map((blob) =>
              new CheckpointBlob({ channel: blob.channel, version: blob.version, type: blob.type, blob: base64Of(blob.blob) }, true)
            ),
            pending_writes: writes.map((write) =>
              new CheckpointPendingWrite({
                task_id: write.task_id,
                idx: Number(write.idx),
                channel: write.channel,
                blob: base64Of(write.blob) ?? "",
                type: write.type
              }, true)
            )
          }, true)
        )
      }).pipe(Effect.orDie)

    /**
     * The thread's checkpoints, greatest id first (then by namespace). A metadata filter
     * (containment) is applied to the rows read `filteredBatch` at a time until `limit` match.
     */
    const list = (request: CheckpointListRequest) =>
      Effect.gen(function*() {
        const where: Array<Statement.Fragment> = [sql`thread_id = ${request.threadId}`]
        if (request.ns !== undefined) where.push(sql`checkpoint_ns = ${request.ns}`)
        if (request.before !== undefined) where.push(sql`checkpoint_id < ${request.before}`)
        const read = (after: CheckpointRow | undefined, limit: number) =>
          sql<CheckpointRow>`SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata
            FROM agent_task_checkpoints WHERE ${
            sql.and([
              ...where,
              ...(after === undefined ? [] : [
                sql`(checkpoint_id < ${after.checkpoint_id} OR (checkpoint_id = ${after.checkpoint_id} AND checkpoint_ns > ${after.checkpoint_ns}))`
              ])
            ])
          } ORDER BY checkpoint_id DESC, checkpoint_ns ASC LIMIT ${limit}`
        const filter = request.filter
        if (filter === undefined || Object.keys(filter).length === 0) return (yield* read(undefined, request.limit)).map(itemOf)
        const found: Array<CheckpointListItem> = []
        let after: CheckpointRow | undefined
        while (found.length < request.limit) {
          const rows = yield* read(after, filteredBatch)
          for (const row of rows) {
            const item = itemOf(row)
            if (contains(item.metadata, filter) && found.length < request.limit) found.push(item)
          }
          if (rows.length < filteredBatch) break
          after = rows[rows.length - 1]
        }
        return found
      }).pipe(Effect.orDie)

    /** Every row of the thread, in every namespace. */
    const deleteThread = (threadId: string) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM agent_task_checkpoint_writes WHERE thread_id = ${threadId}`
        yield* sql`DELETE FROM agent_task_checkpoint_blobs WHERE thread_id = ${threadId}`
        yield* sql`DELETE FROM agent_task_checkpoints WHERE thread_id = ${threadId}`
      }).pipe(writesTogetherOn(sql), Effect.orDie)

    return { put, putWrites, getTuple, list, deleteThread } as const
  })
}) {}
