import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../../sql/dialect.js"

/**
 * LangGraph's checkpoint store (docs/agent-tasks.md "Checkpoints"), agentex's three tables: the
 * checkpoints of a thread (a task) by namespace and id, the channel values (blobs) by channel and
 * version, shared by the checkpoints of the namespace, and the pending writes of a checkpoint's
 * tasks. `checkpoint` and `metadata` are JSON text; bytes are `bytes` (BLOB, BYTEA), a quarter
 * smaller than their base64 and what agentex keeps. `account_id` is the task's, for the record:
 * a thread is reached through its task, whose id no other account's task has.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE agent_task_checkpoints (
    thread_id ${t.text} NOT NULL,
    checkpoint_ns ${t.text} NOT NULL,
    checkpoint_id ${t.text} NOT NULL,
    account_id ${t.text} NOT NULL,
    parent_checkpoint_id ${t.text},
    checkpoint ${t.json} NOT NULL,
    metadata ${t.json} NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
  )`)
  yield* sql.unsafe(`CREATE TABLE agent_task_checkpoint_blobs (
    thread_id ${t.text} NOT NULL,
    checkpoint_ns ${t.text} NOT NULL,
    channel ${t.text} NOT NULL,
    version ${t.text} NOT NULL,
    account_id ${t.text} NOT NULL,
    type ${t.text} NOT NULL,
    blob ${t.bytes},
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
  )`)
  yield* sql.unsafe(`CREATE TABLE agent_task_checkpoint_writes (
    thread_id ${t.text} NOT NULL,
    checkpoint_ns ${t.text} NOT NULL,
    checkpoint_id ${t.text} NOT NULL,
    task_id ${t.text} NOT NULL,
    idx ${t.integer} NOT NULL,
    account_id ${t.text} NOT NULL,
    channel ${t.text} NOT NULL,
    type ${t.text},
    blob ${t.bytes} NOT NULL,
    task_path ${t.text} NOT NULL DEFAULT '',
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
  )`)
})

/** The checkpoint store's migration, by id (listed in ../../migrations.ts with the agent tasks'). */
export const checkpointMigrations = {
  "0061_agent_task_checkpoints": created
}
