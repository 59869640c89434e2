/**
 * The checkpoint store of agentex (docs/agent-tasks.md "Checkpoints"): where LangGraph's
 * checkpointer keeps a thread's checkpoints, their channel values (blobs) and the pending writes
 * of their tasks, through five POST endpoints. A thread is an agentex task (`thread_id` is its
 * id); bytes travel as base64.
 */
import { Schema } from "effect"
import { JsonObject, Optional } from "./common.js"

/** Standard base64 (RFC 4648 alphabet, `=` padding to a multiple of 4), as Python's `b64decode` takes it. */
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Bytes as base64 text: anything else in a request is a 422. */
export const Base64 = Schema.String.pipe(
  Schema.pattern(base64Pattern, { message: () => "Not valid base64: the standard alphabet, padded with = to a multiple of 4" })
).annotations({ identifier: "Base64" })

/**
 * The parts of a stored row's key, bounded so that a key fits a PostgreSQL index entry (about
 * 2.7 kB) on every table: a namespace of nested subgraphs is the longest.
 */
const KeyPart = Schema.String.pipe(Schema.maxLength(128))
const Namespace = Schema.String.pipe(Schema.maxLength(256))

/** A write's `idx` (LangGraph's special channels use -1 to -4): a 32-bit integer. */
const WriteIndex = Schema.Int.pipe(Schema.between(-2147483648, 2147483647))

/** A channel value sent with a checkpoint: serialized by the checkpointer (`type` its serializer's tag, `"empty"` for none). */
export const CheckpointBlobInput = Schema.Struct({
  channel: KeyPart,
  version: KeyPart,
  type: Schema.String,
  blob: Optional(Base64)
}).annotations({ identifier: "CheckpointPutBlob" })

/** A channel value of a checkpoint as answered: `blob` null for an `"empty"` one. */
export class CheckpointBlob extends Schema.Class<CheckpointBlob>("CheckpointBlob")({
  channel: Schema.String,
  version: Schema.String,
  type: Schema.String,
  blob: Schema.NullOr(Schema.String)
}) {}

/** `POST /checkpoints/put`: a checkpoint and the channel values it made (each kept once per version). */
export class CheckpointPut extends Schema.Class<CheckpointPut>("CheckpointPut")({
  thread_id: Schema.String,
  checkpoint_id: KeyPart,
  checkpoint: JsonObject,
  checkpoint_ns: Optional(Namespace),
  parent_checkpoint_id: Optional(Schema.String),
  metadata: Optional(JsonObject),
  blobs: Optional(Schema.Array(CheckpointBlobInput).pipe(Schema.maxItems(10_000)))
}) {}

/** The answer of a put: the request's key as given. */
export class CheckpointPutResponse extends Schema.Class<CheckpointPutResponse>("CheckpointPutResponse")({
  checkpoint_id: Schema.String,
  checkpoint_ns: Schema.String,
  thread_id: Schema.String
}) {}

/** One value a LangGraph task wrote to a channel (`task_id` is LangGraph's, not an agentex task). */
export const CheckpointWriteInput = Schema.Struct({
  task_id: KeyPart,
  idx: WriteIndex,
  channel: Schema.String,
  blob: Base64,
  type: Optional(Schema.String),
  task_path: Optional(Schema.String)
}).annotations({ identifier: "CheckpointWrite" })

/** `POST /checkpoints/put-writes`: a task's writes against a checkpoint; `upsert` replaces those already there. */
export class CheckpointPutWrites extends Schema.Class<CheckpointPutWrites>("CheckpointPutWrites")({
  thread_id: Schema.String,
  checkpoint_id: KeyPart,
  writes: Schema.Array(CheckpointWriteInput).pipe(Schema.maxItems(10_000)),
  checkpoint_ns: Optional(Namespace),
  upsert: Optional(Schema.Boolean)
}) {}

/** A pending write of a checkpoint as answered (its `task_path` is kept, not answered). */
export class CheckpointPendingWrite extends Schema.Class<CheckpointPendingWrite>("CheckpointPendingWrite")({
  task_id: Schema.String,
  idx: Schema.Int,
  channel: Schema.String,
  blob: Schema.String,
  type: Schema.NullOr(Schema.String)
}) {}

/** `POST /checkpoints/get-tuple`: a checkpoint by id, or the thread's latest in the namespace (`checkpoint_id` null). */
export class CheckpointGetTuple extends Schema.Class<CheckpointGetTuple>("CheckpointGetTuple")({
  thread_id: Schema.String,
  checkpoint_ns: Optional(Schema.String),
  checkpoint_id: Optional(Schema.String)
}) {}

const checkpointFields = {
  checkpoint: JsonObject,
  checkpoint_id: Schema.String,
  checkpoint_ns: Schema.String,
  metadata: JsonObject,
  thread_id: Schema.String,
  parent_checkpoint_id: Schema.NullOr(Schema.String)
}

/** A checkpoint with the values of its channels' versions and its pending writes. */
export class CheckpointTupleResponse extends Schema.Class<CheckpointTupleResponse>("CheckpointGetTupleResponse")({
  ...checkpointFields,
  blobs: Schema.Array(CheckpointBlob),
  pending_writes: Schema.Array(CheckpointPendingWrite)
}) {}

/** `POST /checkpoints/list`: a thread's checkpoints, newest first. */
export class CheckpointList extends Schema.Class<CheckpointList>("CheckpointList")({
  thread_id: Schema.String,
  /** Null or left out: every namespace. */
  checkpoint_ns: Optional(Schema.String),
  before_checkpoint_id: Optional(Schema.String),
  /** Checkpoints whose metadata contains this object (as PostgreSQL's `@>`). */
  filter_metadata: Optional(JsonObject),
  limit: Optional(Schema.Int.pipe(Schema.between(1, 1000)))
}) {}

/** A listed checkpoint: no blobs, no pending writes. */
export class CheckpointListItem extends Schema.Class<CheckpointListItem>("CheckpointListItem")(checkpointFields) {}

/** `POST /checkpoints/delete-thread`: every checkpoint, blob and write of the thread, in every namespace. */
export class CheckpointDeleteThread extends Schema.Class<CheckpointDeleteThread>("CheckpointDeleteThread")({
  thread_id: Schema.String
}) {}
