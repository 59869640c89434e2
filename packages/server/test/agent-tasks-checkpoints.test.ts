/**
 * The checkpoint store (docs/agent-tasks.md "Checkpoints"), each rule of agentex's: a put stores
 * the checkpoint and its blobs (a blob is kept once per channel and version; a checkpoint put again
 * gets the new checkpoint and metadata and keeps its parent); writes are kept or replaced as
 * `upsert` says; get-tuple finds a checkpoint or the latest (greatest id), with the blobs of its
 * channel versions and its writes, or `null`; list narrows by namespace, id and metadata;
 * delete-thread empties every namespace; bytes are base64 (else 422); the thread is a task of the
 * caller's (another account's: 404, nothing written). LangGraph's own suite runs in
 * agent-tasks-checkpoints-langgraph.test.ts.
 */
import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

/** A task (a thread) of a sync agent of the caller's (its task/create is not forwarded). */
const threadOf = (caller: Caller, name: string) =>
  Effect.gen(function*() {
    const agent = yield* caller.client.agents.register({ payload: { name: `${name}-agent`, description: "d", acp_url: "http://127.0.0.1:9", acp_type: "sync" } })
    const made = yield* request("POST", `/agents/${agent.id}/rpc`, { key: caller.key, body: { method: "task/create", params: { name } } })
    return made.body.result.id as string
  })

const b64 = (text: string) => Buffer.from(text).toString("base64")

/** A LangGraph checkpoint whose `channel_versions` are `versions`, its inline values `inline`. */
const checkpoint = (id: string, versions: Record<string, string | number>, inline: Record<string, unknown> = {}) => ({
  v: 4,
  id,
  ts: "2026-12-07T00:00:00.000Z",
  channel_values: inline,
  channel_versions: versions,
  versions_seen: {}
})

/** The `sh` blocks of docs/agent-tasks.md's "Checkpoints" section, as one script. */
const docRecipe = () => {
  const markdown = Fs.readFileSync(new URL("../../../docs/agent-tasks.md", import.meta.url), "utf8")
  const section = /^## Checkpoints\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1] ?? ""
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!).join("\n")
}

const post = (caller: Caller, path: string, body: unknown) => request("POST", `/checkpoints/${path}`, { key: caller.key, body })

layer(TestServerLive, { timeout: 60_000 })("agent task checkpoints", (it) => {
  it.effect("put answers its key; get-tuple answers the checkpoint with its versions' blobs (base64 kept) and null when none", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const thread = yield* threadOf(caller, "put-get")
      const put = yield* caller.client.checkpoints.put({
        payload: {
          thread_id: thread,
          checkpoint_id: "0001",
          checkpoint: checkpoint("0001", { messages: "v1", counter: 1, cleared: "v1" }, { note: "inline" }),
          metadata: { source: "input", step: -1 },
          blobs: [
            { channel: "messages", version: "v1", type: "json", blob: b64("[\"hi\"]") },
            { channel: "counter", version: "1", type: "json", blob: b64("1") },
            { channel: "cleared", version: "v1", type: "empty" },
            // a version the checkpoint does not name: stored, not answered with it
            { channel: "messages", version: "v0", type: "json", blob: b64("[]") }
          ]
        }
      })
      assert.deepStrictEqual({ ...put }, { checkpoint_id: "0001", checkpoint_ns: "", thread_id: thread })

      const got = yield* post(caller, "get-tuple", { thread_id: thread, checkpoint_id: "0001" })
      assert.strictEqual(got.status, 200)
      assert.deepStrictEqual(got.body, {
        checkpoint: checkpoint("0001", { messages: "v1", counter: 1, cleared: "v1" }, { note: "inline" }),
        checkpoint_id: "0001",
        checkpoint_ns: "",
        metadata: { source: "input", step: -1 },
        thread_id: thread,
        parent_checkpoint_id: null,
        blobs: [
          { channel: "cleared", version: "v1", type: "empty", blob: null },
          { channel: "counter", version: "1", type: "json", blob: b64("1") },
          { channel: "messages", version: "v1", type: "json", blob: b64("[\"hi\"]") }
        ],
        pending_writes: []
      })
      // metadata left out is {}, blobs left out none; the namespace is its own
      yield* caller.client.checkpoints.put({ payload: { thread_id: thread, checkpoint_id: "0002", checkpoint_ns: "child", checkpoint: checkpoint("0002", {}) } })
      const child = yield* caller.client.checkpoints.getTuple({ payload: { thread_id: thread, checkpoint_ns: "child" } })
      assert.deepStrictEqual([child?.checkpoint_id, child?.metadata, child?.blobs], ["0002", {}, []])

      // nothing there: HTTP 200 with JSON null
      for (const body of [{ thread_id: thread, checkpoint_id: "9999" }, { thread_id: thread, checkpoint_ns: "other" }]) {
        const none = yield* post(caller, "get-tuple", body)
        assert.deepStrictEqual([none.status, none.body], [200, null])
      }
      const empty = yield* threadOf(caller, "empty")
      assert.isNull(yield* caller.client.checkpoints.getTuple({ payload: { thread_id: empty } }))

      // bytes are kept as bytes
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ blob: Uint8Array }>`SELECT blob FROM agent_task_checkpoint_blobs WHERE thread_id = ${thread} AND channel = 'messages' AND version = 'v1'`
      assert.strictEqual(Buffer.from(row!.blob).toString("utf8"), "[\"hi\"]")
    }))

  it.effect("the latest is the greatest id as text; a put again keeps its blobs and its parent, replaces checkpoint and metadata", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const thread = yield* threadOf(caller, "conflicts")
      for (const id of ["b", "a10", "a9"]) {
        yield* caller.client.checkpoints.put({ payload: { thread_id: thread, checkpoint_id: id, checkpoint: checkpoint(id, {}), metadata: { id } } })
      }
      // "b" > "a9" > "a10" as text, whatever the order of the puts
      assert.strictEqual((yield* caller.client.checkpoints.getTuple({ payload: { thread_id: thread } }))?.checkpoint_id, "b")

      yield* caller.client.checkpoints.put({
        payload: {
          thread_id: thread,
          checkpoint_id: "c",
          parent_checkpoint_id: "b",
          checkpoint: checkpoint("c", { messages: "v1" }),
          metadata: { step: 1 },
          blobs: [{ channel: "messages", version: "v1", type: "json", blob: b64("first") }]
        }
      })
      yield* caller.client.checkpoints.put({
        payload: {
          thread_id: thread,
          checkpoint_id: "c",
          parent_checkpoint_id: "a9",
          checkpoint: { ...checkpoint("c", { messages: "v1" }), ts: "later" },
          metadata: { step: 2 },
          blobs: [{ channel: "messages", version: "v1", type: "msgpack", blob: b64("second") }]
        }
      })
      const again = yield* caller.client.checkpoints.getTuple({ payload: { thread_id: thread, checkpoint_id: "c" } })
      assert.deepStrictEqual(again?.checkpoint.ts, "later")
      assert.deepStrictEqual(again?.metadata, { step: 2 })
      assert.strictEqual(again?.parent_checkpoint_id, "b")
      assert.deepStrictEqual(again?.blobs.map((blob) => ({ ...blob })), [{ channel: "messages", version: "v1", type: "json", blob: b64("first") }])
    }))

  it.effect("writes: 204; kept without upsert, replaced with it; answered by task and index, task_path kept unanswered", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const thread = yield* threadOf(caller, "writes")
      yield* caller.client.checkpoints.put({ payload: { thread_id: thread, checkpoint_id: "1", checkpoint: checkpoint("1", {}) } })
      const write = (task_id: string, idx: number, text: string, type: string | null = "json") => ({
        task_id,
        idx,
        channel: `ch-${text}`,
        blob: b64(text),
        ...(type === null ? {} : { type }),
        task_path: `path-${task_id}`
      })
      const first = yield* post(caller, "put-writes", {
        thread_id: thread,
        checkpoint_id: "1",
        writes: [write("task-b", 0, "b0"), write("task-a", 1, "a1"), write("task-a", 0, "a0", null), write("task-a", -1, "err")]
      })
      assert.deepStrictEqual([first.status, first.body], [204, undefined])
      // upsert left out (false): the write there is kept
      yield* caller.client.checkpoints.putWrites({ payload: { thread_id: thread, checkpoint_id: "1", writes: [write("task-b", 0, "kept?")] } })
      const pending = (yield* caller.client.checkpoints.getTuple({ payload: { thread_id: thread } }))!.pending_writes.map((w) => ({ ...w }))
      assert.deepStrictEqual(pending, [
        { task_id: "task-a", idx: -1, channel: "ch-err", blob: b64("err"), type: "json" },
        { task_id: "task-a", idx: 0, channel: "ch-a0", blob: b64("a0"), type: null },
        { task_id: "task-a", idx: 1, channel: "ch-a1", blob: b64("a1"), type: "json" },
        { task_id: "task-b", idx: 0, channel: "ch-b0", blob: b64("b0"), type: "json" }
      ])
      // upsert: channel, type and bytes replaced
      yield* caller.client.checkpoints.putWrites({ payload: { thread_id: thread, checkpoint_id: "1", upsert: true, writes: [write("task-b", 0, "new", "msgpack")] } })
      const replaced = (yield* caller.client.checkpoints.getTuple({ payload: { thread_id: thread } }))!.pending_writes.at(-1)
      assert.deepStrictEqual({ ...replaced }, { task_id: "task-b", idx: 0, channel: "ch-new", blob: b64("new"), type: "msgpack" })
      const sql = yield* SqlClient.SqlClient
      const paths = yield* sql<{ task_path: string }>`SELECT DISTINCT task_path FROM agent_task_checkpoint_writes WHERE thread_id = ${thread} ORDER BY task_path`
      assert.deepStrictEqual(paths.map((row) => row.task_path), ["path-task-a", "path-task-b"])
      // another namespace's checkpoint of the same id has writes of its own
      assert.deepStrictEqual((yield* post(caller, "get-tuple", { thread_id: thread, checkpoint_ns: "x", checkpoint_id: "1" })).body, null)
    }))

  it.effect("list: greatest id first without blobs or writes; namespace (null: all), before, metadata containment, limit", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const thread = yield* threadOf(caller, "listed")
      const puts = [
        ["", "01", { source: "input", step: -1, tags: ["a", "b"], nested: { x: 1, y: 2 } }],
        ["", "02", { source: "loop", step: 0, tags: ["b"] }],
        ["child", "03", { source: "loop", step: 1, nested: { x: 1 } }],
        ["", "04", { source: "update", step: 2 }]
      ] as const
      for (const [ns, id, metadata] of puts) {
        yield* caller.client.checkpoints.put({
          payload: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id, ...(id === "01" ? {} : { parent_checkpoint_id: "01" }), checkpoint: checkpoint(id, {}), metadata }
        })
      }
      const ids = (body: Record<string, unknown>) =>
        Effect.map(caller.client.checkpoints.list({ payload: { thread_id: thread, ...body } }), (items) => items.map((item) => item.checkpoint_id))
      assert.deepStrictEqual(yield* ids({}), ["04", "03", "02", "01"])
      const allNamespaces = yield* post(caller, "list", { thread_id: thread, checkpoint_ns: null })
      assert.deepStrictEqual(allNamespaces.body.map((item: { checkpoint_id: string }) => item.checkpoint_id), ["04", "03", "02", "01"])
      assert.deepStrictEqual(yield* ids({ checkpoint_ns: "" }), ["04", "02", "01"])
      assert.deepStrictEqual(yield* ids({ checkpoint_ns: "child" }), ["03"])
      assert.deepStrictEqual(yield* ids({ before_checkpoint_id: "03" }), ["02", "01"])
      assert.deepStrictEqual(yield* ids({ limit: 2 }), ["04", "03"])
      assert.deepStrictEqual(yield* ids({ filter_metadata: { source: "loop" } }), ["03", "02"])
      assert.deepStrictEqual(yield* ids({ filter_metadata: { source: "loop" }, limit: 1 }), ["03"])
      assert.deepStrictEqual(yield* ids({ filter_metadata: { tags: ["b"] } }), ["02", "01"])
      assert.deepStrictEqual(yield* ids({ filter_metadata: { nested: { x: 1 } } }), ["03", "01"])
      assert.deepStrictEqual(yield* ids({ filter_metadata: { step: 0, source: "input" } }), [])
      assert.deepStrictEqual(yield* ids({ filter_metadata: {} }), ["04", "03", "02", "01"])

      const raw = yield* post(caller, "list", { thread_id: thread, checkpoint_ns: "child" })
      assert.deepStrictEqual(raw.body, [{
        checkpoint: checkpoint("03", {}),
        checkpoint_id: "03",
        checkpoint_ns: "child",
        metadata: { source: "loop", step: 1, nested: { x: 1 } },
        thread_id: thread,
        parent_checkpoint_id: "01"
      }])
      for (const limit of [0, 1001]) {
        const refused = yield* post(caller, "list", { thread_id: thread, limit })
        assert.strictEqual(refused.status, 422)
        assert.deepStrictEqual(issues(refused).map((issue: { loc: unknown }) => issue.loc), [["body", "limit"]])
      }
    }))

  it.effect("a filtered list reads past its first batch until it has the limit", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const thread = yield* threadOf(caller, "many")
      const sql = yield* SqlClient.SqlClient
      // 450 checkpoints, every 100th a match: more than two batches of 200 to read
      const rows = Array.from({ length: 450 }, (_, i) => {
        const id = String(i).padStart(4, "0")
        return {
          thread_id: thread,
          checkpoint_ns: "",
          checkpoint_id: id,
          account_id: caller.accountId,
          parent_checkpoint_id: null,
          checkpoint: JSON.stringify(checkpoint(id, {})),
          metadata: JSON.stringify({ hit: i % 100 === 0 })
        }
      })
      for (let start = 0; start < rows.length; start += 100) yield* sql`INSERT INTO agent_task_checkpoints ${sql.insert(rows.slice(start, start + 100))}`
      const listed = yield* caller.client.checkpoints.list({ payload: { thread_id: thread, filter_metadata: { hit: true } } })
      assert.deepStrictEqual(listed.map((item) => item.checkpoint_id), ["0400", "0300", "0200", "0100", "0000"])
      const two = yield* caller.client.checkpoints.list({ payload: { thread_id: thread, filter_metadata: { hit: true }, limit: 2 } })
      assert.deepStrictEqual(two.map((item) => item.checkpoint_id), ["0400", "0300"])
      assert.lengthOf(yield* caller.client.checkpoints.list({ payload: { thread_id: thread } }), 100)
    }))

  it.effect("delete-thread: 204, every namespace's checkpoints, blobs and writes of the thread, none of another", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const [gone, kept] = [yield* threadOf(caller, "gone"), yield* threadOf(caller, "kept")]
      for (const thread of [gone, kept]) {
        for (const ns of ["", "child"]) {
          yield* caller.client.checkpoints.put({
            payload: {
              thread_id: thread,
              checkpoint_ns: ns,
              checkpoint_id: "1",
              checkpoint: checkpoint("1", { c: "1" }),
              blobs: [{ channel: "c", version: "1", type: "json", blob: b64("1") }]
            }
          })
          yield* caller.client.checkpoints.putWrites({
            payload: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: "1", writes: [{ task_id: "t", idx: 0, channel: "c", blob: b64("2") }] }
          })
        }
      }
      const deleted = yield* post(caller, "delete-thread", { thread_id: gone })
      assert.deepStrictEqual([deleted.status, deleted.body], [204, undefined])
      const sql = yield* SqlClient.SqlClient
      for (const table of ["agent_task_checkpoints", "agent_task_checkpoint_blobs", "agent_task_checkpoint_writes"]) {
        const counts = yield* sql<{ thread_id: string; n: number }>`SELECT thread_id, COUNT(*) AS n FROM ${sql(table)} WHERE ${sql.in("thread_id", [gone, kept])} GROUP BY thread_id`
        assert.deepStrictEqual(counts.map((row) => [row.thread_id, Number(row.n)]), [[kept, 2]], table)
      }
      assert.lengthOf(yield* caller.client.checkpoints.list({ payload: { thread_id: gone } }), 0)
      // a thread without checkpoints: deleted all the same
      assert.strictEqual((yield* post(caller, "delete-thread", { thread_id: gone })).status, 204)
    }))

  it.effect("bytes that are not base64 are a 422 naming the field; nothing is written", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const thread = yield* threadOf(caller, "bytes")
      for (const blob of ["not base64!", "abc", "YQ=", "YQ==YQ==", "YW Jj"]) {
        const put = yield* post(caller, "put", {
          thread_id: thread,
          checkpoint_id: "1",
          checkpoint: checkpoint("1", {}),
          blobs: [{ channel: "c", version: "1", type: "json", blob: b64("ok") }, { channel: "d", version: "1", type: "json", blob }]
        })
        assert.strictEqual(put.status, 422, blob)
        assert.deepStrictEqual(issues(put).map((issue: { loc: unknown }) => issue.loc), [["body", "blobs", 1, "blob"]])
        const writes = yield* post(caller, "put-writes", { thread_id: thread, checkpoint_id: "1", writes: [{ task_id: "t", idx: 0, channel: "c", blob }] })
        assert.strictEqual(writes.status, 422, blob)
        assert.deepStrictEqual(issues(writes).map((issue: { loc: unknown }) => issue.loc), [["body", "writes", 0, "blob"]])
      }
      // a write's blob is required, a checkpoint blob's may be null
      const missing = yield* post(caller, "put-writes", { thread_id: thread, checkpoint_id: "1", writes: [{ task_id: "t", idx: 0, channel: "c" }] })
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "writes", 0, "blob"], type: "missing" }])
      assert.isNull(yield* caller.client.checkpoints.getTuple({ payload: { thread_id: thread } }))
      const empty = yield* post(caller, "put", { thread_id: thread, checkpoint_id: "1", checkpoint: checkpoint("1", { c: "1" }), blobs: [{ channel: "c", version: "1", type: "empty", blob: null }] })
      assert.strictEqual(empty.status, 200)
      const sql = yield* SqlClient.SqlClient
      assert.deepStrictEqual(yield* sql`SELECT blob FROM agent_task_checkpoint_blobs WHERE thread_id = ${thread}`, [{ blob: null }])
    }))

  it.effect("get-tuple reads only its versions' blobs, in several reads when it names more channels than one read holds", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const thread = yield* threadOf(caller, "many-channels")
      // 450 channels (beyond the 400 pairs a read names), each with an older version not answered
      const channels = Array.from({ length: 450 }, (_, i) => `ch${String(i).padStart(3, "0")}`)
      yield* caller.client.checkpoints.put({
        payload: {
          thread_id: thread,
          checkpoint_id: "1",
          checkpoint: checkpoint("1", Object.fromEntries(channels.map((channel) => [channel, "2"]))),
          blobs: channels.flatMap((channel) => [
            { channel, version: "1", type: "json", blob: b64("old") },
            { channel, version: "2", type: "json", blob: b64(channel) }
          ])
        }
      })
      const got = yield* caller.client.checkpoints.getTuple({ payload: { thread_id: thread } })
      assert.deepStrictEqual(got?.blobs.map((blob) => [blob.channel, blob.version, blob.blob]), channels.map((channel) => [channel, "2", b64(channel)]))
    }))

  it.effect("keys at their longest (3-byte characters) fit every table's index; longer ones are a 422", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const thread = yield* threadOf(caller, "long-keys")
      const [ns, id, channel, version, task] = ["€".repeat(256), "€".repeat(127) + "'", "€".repeat(127) + "\\", "€".repeat(127) + "%", "€".repeat(127) + "\""]
      yield* caller.client.checkpoints.put({
        payload: {
          thread_id: thread,
          checkpoint_ns: ns,
          checkpoint_id: id,
          checkpoint: checkpoint(id, { [channel]: version }),
          blobs: [{ channel, version, type: "json", blob: b64("v") }]
        }
      })
      yield* caller.client.checkpoints.putWrites({
        payload: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id, writes: [{ task_id: task, idx: 2147483647, channel, blob: b64("w") }] }
      })
      const got = yield* caller.client.checkpoints.getTuple({ payload: { thread_id: thread, checkpoint_ns: ns } })
      assert.deepStrictEqual([got?.checkpoint_id, got?.blobs[0]?.version, got?.pending_writes[0]?.task_id], [id, version, task])
      const longer = yield* post(caller, "put", { thread_id: thread, checkpoint_ns: ns + "x", checkpoint_id: id + "x", checkpoint: {} })
      assert.deepStrictEqual(issues(longer).map((issue: { loc: unknown }) => issue.loc), [["body", "checkpoint_id"], ["body", "checkpoint_ns"]])
    }))

  it.effect("the doc's recipe runs against the server (bash, curl, jq)", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const server = yield* HttpServer.HttpServer
      const script = docRecipe()
      assert.include(script, "/checkpoints/delete-thread")
      const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", BASE: `http://127.0.0.1:${(server.address as HttpServer.TcpAddress).port}`, KEY: key }
      const failure = yield* Effect.async<string | null>((resume) => {
        const child = execFile("bash", ["-euo", "pipefail", "-c", script], { env }, (error, stdout, stderr) =>
          resume(Effect.succeed(error === null ? null : `${error.message}\n${stdout}\n${stderr}`)))
        return Effect.sync(() => child.kill("SIGKILL"))
      })
      assert.isNull(failure)
    }))

  it.effect("the thread is a task of the caller's: another account's task or none is a 404 on every endpoint, nothing written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const thread = yield* threadOf(alice, "alices")
      yield* alice.client.checkpoints.put({ payload: { thread_id: thread, checkpoint_id: "1", checkpoint: checkpoint("1", {}), metadata: { owner: "alice" } } })
      const bodies = (thread_id: string) => ({
        "get-tuple": { thread_id },
        put: { thread_id, checkpoint_id: "2", checkpoint: checkpoint("2", {}) },
        "put-writes": { thread_id, checkpoint_id: "1", writes: [{ task_id: "t", idx: 0, channel: "c", blob: b64("x") }] },
        list: { thread_id },
        "delete-thread": { thread_id }
      })
      for (const thread_id of [thread, "no-such-task"]) {
        for (const [path, body] of Object.entries(bodies(thread_id))) {
          const refused = yield* post(bob, path, body)
          assert.strictEqual(refused.status, 404, `${path} ${thread_id}`)
          assert.isString(refused.body.detail)
          assert.notInclude(JSON.stringify(refused.body), "alice")
        }
      }
      const still = yield* alice.client.checkpoints.list({ payload: { thread_id: thread } })
      assert.deepStrictEqual(still.map((item) => [item.checkpoint_id, item.metadata]), [["1", { owner: "alice" }]])
      assert.deepStrictEqual((yield* alice.client.checkpoints.getTuple({ payload: { thread_id: thread } }))?.pending_writes, [])
      // no key: 401
      assert.strictEqual((yield* request("POST", "/checkpoints/list", { body: { thread_id: thread } })).status, 401)
    }))
})
