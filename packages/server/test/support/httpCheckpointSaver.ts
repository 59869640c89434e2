/**
 * A LangGraph checkpointer over the kit's checkpoint store (`/checkpoints/*`, docs/agent-tasks.md
 * "Checkpoints"), laid out as the agentex ADK's `HttpCheckpointSaver` lays it out: the checkpoint
 * as JSON, each changed channel value a blob (serialized by the saver's `serde`, base64) keyed by
 * channel and version, `"empty"` for a channel without one; pending writes by task and index,
 * replaced when every channel is one of LangGraph's special ones (`WRITES_IDX_MAP`, their fixed
 * index). What LangGraph's validation suite (agent-tasks-checkpoints-langgraph.test.ts) runs.
 *
 * Where it differs from the ADK, for the suite's sake and not the store's:
 * - every changed channel value is a blob, strings and numbers too (the ADK keeps those inline in
 *   the checkpoint, so a checkpoint would show values of channels it did not change);
 * - `list` completes each listed checkpoint with a get-tuple (the list answers neither blobs nor
 *   writes; the ADK yields the listed checkpoint as it is);
 * - the pending sends of a checkpoint of format < 4 are its parent's TASKS writes (LangGraph's
 *   own savers do so; the ADK reads the checkpoint's own writes);
 * - a LangGraph thread id is a task's name (the store's threads are tasks: `threads` makes and
 *   finds them), and a list without a thread lists every thread of the caller.
 */
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  TASKS,
  WRITES_IDX_MAP
} from "@langchain/langgraph-checkpoint"
import type { RunnableConfig } from "@langchain/core/runnables"

/** The store's threads as the saver sees them: tasks named by LangGraph's thread ids. */
export interface CheckpointThreads {
  /** The task of the thread, made if there is none. */
  readonly make: (threadId: string) => Promise<string>
  /** The task of the thread; undefined when there is none. */
  readonly find: (threadId: string) => Promise<string | undefined>
  /** Every thread of the caller. */
  readonly all: () => Promise<ReadonlyArray<string>>
}

/** POSTs `body` to `/checkpoints${path}` and answers the JSON of a 200, undefined for a 204; throws on anything else. */
export type CheckpointPost = (path: string, body: unknown) => Promise<any>

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")
const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, "base64"))

interface StoredBlob {
  readonly channel: string
  readonly version: string
  readonly type: string
  readonly blob: string | null
}

interface StoredWrite {
  readonly task_id: string
  readonly idx: number
  readonly channel: string
  readonly blob: string
  readonly type: string | null
}

export class HttpCheckpointSaver extends BaseCheckpointSaver {
  private readonly tasks = new Map<string, string>()

  constructor(private readonly post: CheckpointPost, private readonly threads: CheckpointThreads) {
    super()
  }

  private async taskOf(threadId: string, make: boolean): Promise<string | undefined> {
    const known = this.tasks.get(threadId)
    if (known !== undefined) return known
    const task = make ? await this.threads.make(threadId) : await this.threads.find(threadId)
    if (task !== undefined) this.tasks.set(threadId, task)
    return task
  }

  private async value(type: string | null, blob: string): Promise<unknown> {
    return type === null ? bytesOf(blob) : this.serde.loadsTyped(type, bytesOf(blob))
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined
    if (threadId === undefined) return undefined
    const task = await this.taskOf(threadId, false)
    if (task === undefined) return undefined
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? ""
    const data = await this.post("/get-tuple", { thread_id: task, checkpoint_ns: ns, checkpoint_id: getCheckpointId(config) || null })
    if (data === null) return undefined
    const checkpoint = data.checkpoint as Checkpoint
    const values: Record<string, unknown> = { ...checkpoint.channel_values }
    for (const blob of data.blobs as ReadonlyArray<StoredBlob>) {
      if (blob.type !== "empty" && blob.blob !== null) values[blob.channel] = await this.value(blob.type, blob.blob)
    }
    checkpoint.channel_values = values
    if (checkpoint.v < 4 && data.parent_checkpoint_id !== null) {
      const parent = await this.post("/get-tuple", { thread_id: task, checkpoint_ns: ns, checkpoint_id: data.parent_checkpoint_id })
      const sends = (parent?.pending_writes ?? []).filter((write: StoredWrite) => write.channel === TASKS)
      if (sends.length > 0) {
        values[TASKS] = await Promise.all(sends.map((write: StoredWrite) => this.value(write.type, write.blob)))
        const versions = Object.values(checkpoint.channel_versions)
        checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined)
      }
    }
    const pendingWrites: Array<CheckpointPendingWrite> = []
    for (const write of data.pending_writes as ReadonlyArray<StoredWrite>) {
      pendingWrites.push([write.task_id, write.channel, await this.value(write.type, write.blob)])
    }
    const configOf = (id: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: data.checkpoint_ns, checkpoint_id: id } })
    return {
      config: configOf(data.checkpoint_id),
      checkpoint,
      metadata: data.metadata,
      ...(data.parent_checkpoint_id !== null ? { parentConfig: configOf(data.parent_checkpoint_id) } : {}),
      pendingWrites
    }
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const threadId = config.configurable?.thread_id as string | undefined
    const ns = config.configurable?.checkpoint_ns as string | undefined
    const threads = threadId === undefined ? await this.threads.all() : [threadId]
    const listed: Array<{ readonly threadId: string; readonly ns: string; readonly id: string }> = []
    for (const thread of threads) {
      const task = await this.taskOf(thread, false)
      if (task === undefined) continue
      const before = options.before === undefined ? undefined : getCheckpointId(options.before)
      const items = await this.post("/list", {
        thread_id: task,
        ...(ns !== undefined ? { checkpoint_ns: ns } : {}),
        ...(options.filter !== undefined && Object.keys(options.filter).length > 0 ? { filter_metadata: options.filter } : {}),
        ...(before ? { before_checkpoint_id: before } : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {})
      })
      for (const item of items) listed.push({ threadId: thread, ns: item.checkpoint_ns, id: item.checkpoint_id })
    }
    // across threads as within one: greatest id first
    listed.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    for (const item of listed.slice(0, options.limit ?? listed.length)) {
      const tuple = await this.getTuple({ configurable: { thread_id: item.threadId, checkpoint_ns: item.ns, checkpoint_id: item.id } })
      if (tuple !== undefined) yield tuple
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new Error("put: config.configurable is missing")
    const threadId = config.configurable.thread_id as string | undefined
    if (threadId === undefined) throw new Error("put: config.configurable.thread_id is missing")
    const ns = (config.configurable.checkpoint_ns as string | undefined) ?? ""
    const task = (await this.taskOf(threadId, true))!
    const blobs = []
    for (const [channel, version] of Object.entries(newVersions)) {
      if (channel in checkpoint.channel_values) {
        const [type, bytes] = await this.serde.dumpsTyped((checkpoint.channel_values as Record<string, unknown>)[channel])
        blobs.push({ channel, version: String(version), type, blob: base64(bytes) })
      } else {
        blobs.push({ channel, version: String(version), type: "empty", blob: null })
      }
    }
    await this.post("/put", {
      thread_id: task,
      checkpoint_ns: ns,
      checkpoint_id: checkpoint.id,
      parent_checkpoint_id: (config.configurable.checkpoint_id as string | undefined) ?? null,
      checkpoint: { ...checkpoint, channel_values: {} },
      metadata,
      blobs
    })
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } }
  }

  async putWrites(config: RunnableConfig, writes: Array<PendingWrite>, taskId: string, taskPath = ""): Promise<void> {
    const threadId = config.configurable?.thread_id as string | undefined
    const checkpointId = config.configurable?.checkpoint_id as string | undefined
    if (threadId === undefined) throw new Error("putWrites: config.configurable.thread_id is missing")
    if (checkpointId === undefined) throw new Error("putWrites: config.configurable.checkpoint_id is missing")
    const task = (await this.taskOf(threadId, true))!
    const serialized = []
    for (const [idx, [channel, value]] of writes.entries()) {
      const [type, bytes] = await this.serde.dumpsTyped(value)
      serialized.push({ task_id: taskId, idx: WRITES_IDX_MAP[channel] ?? idx, channel, type, blob: base64(bytes), task_path: taskPath })
    }
    await this.post("/put-writes", {
      thread_id: task,
      checkpoint_ns: (config.configurable?.checkpoint_ns as string | undefined) ?? "",
      checkpoint_id: checkpointId,
      writes: serialized,
      upsert: writes.every(([channel]) => channel in WRITES_IDX_MAP)
    })
  }

  async deleteThread(threadId: string): Promise<void> {
    const task = await this.taskOf(threadId, false)
    if (task !== undefined) await this.post("/delete-thread", { thread_id: task })
  }
}
