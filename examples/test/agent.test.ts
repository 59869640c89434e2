/**
 * The example agent (examples/agent.ts, a real ACP server on 127.0.0.1) registered with the test server and called
 * through the platform's JSON-RPC endpoint: what the agent receives, what is stored, and what the
 * caller gets back, for a sync and an async agent.
 */
import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Chunk, Deferred, Effect, Fiber, Option, Stream } from "effect"
import { type Client, makeStreams } from "@platform-kit/client"
import { BadGateway, NotFound } from "@platform-kit/schema"
import { eventually, provision, request, TestServerLive } from "@platform-kit/server/testing"
import { startAgent } from "../agent.js"

/** The example agent, registered with the test server (its client's relative URLs go there). */
const agentOf = (key: string, acpType: "sync" | "async", name: string) => startAgent({ apiKey: key, name, acpType, port: 0 })

/** A JSON-RPC call as sent: the envelope (`jsonrpc`, `id`, `result`, `error`) is what these tests read. */
const rpc = (key: string, agentId: string, method: string, params: Record<string, unknown>, id: unknown = 7) =>
  request("POST", `/agents/${agentId}/rpc`, { key, body: { jsonrpc: "2.0", id, method, params } })

const user = (content: string) => ({ type: "text", author: "user", content })

layer(TestServerLive, { timeout: 60_000 })("agent tasks through RPC", (it) => {
  it.scoped("a sync agent: task/create by name is get-or-create; message/send answers the agent's messages, stored after the user's", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const { agent, received } = yield* agentOf(key, "sync", "echo-sync")
      assert.strictEqual(agent.status, "Ready")
      assert.match(agent.agent_api_key, /^[0-9a-f]{64}$/)

      const created = yield* rpc(key, agent.id, "task/create", { name: "chat-1", params: { tone: "dry" }, task_metadata: { team: "a" } })
      assert.strictEqual(created.status, 200)
      assert.deepStrictEqual(Object.keys(created.body).sort(), ["error", "id", "jsonrpc", "result"])
      assert.strictEqual(created.body.id, 7)
      assert.strictEqual(created.body.error, null)
      const task = created.body.result
      assert.strictEqual(task.status, "RUNNING")
      assert.deepStrictEqual(task.params, { tone: "dry" })
      // a sync agent is not told of new tasks (as agentex)
      assert.deepStrictEqual(received.map((call) => call.method), [])
      const again = yield* rpc(key, agent.id, "task/create", { name: "chat-1", params: { tone: "warm" } })
      assert.strictEqual(again.body.result.id, task.id)
      assert.deepStrictEqual(again.body.result.params, { tone: "warm" })

      const sent = yield* rpc(key, agent.id, "message/send", { task_id: task.id, content: user("hello there agent") }, "m-1")
      assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
      assert.strictEqual(sent.body.error, null, JSON.stringify(sent.body))
      assert.strictEqual(sent.body.id, "m-1")
      assert.strictEqual(sent.body.result.length, 1)
      const reply = sent.body.result[0]
      assert.deepStrictEqual(reply.content, { type: "text", author: "agent", content: "hello there agent", attachments: null, format: "plain", style: "static" })
      assert.strictEqual(reply.streaming_status, "DONE")
      assert.strictEqual(reply.task_id, task.id)
      // the agent was sent the agent, the task and the content, with its key
      assert.strictEqual(received.length, 1)
      assert.strictEqual(received[0]!.method, "message/send")
      assert.strictEqual(received[0]!.params.agent.id, agent.id)
      assert.strictEqual(received[0]!.params.task.id, task.id)
      assert.strictEqual(received[0]!.params.content.content, "hello there agent")

      const listed = yield* client.messages.list({ urlParams: { task_id: task.id, order_direction: "asc" } })
      assert.deepStrictEqual(listed.map((message: any) => [message.content.author, message.content.content]), [
        ["user", "hello there agent"],
        ["agent", "hello there agent"]
      ])
    }))

  it.scoped("message/send with stream: NDJSON lines, a start, a delta per word and a done, each with its stored message", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const { agent } = yield* agentOf(key, "sync", "echo-stream")
      const sent = yield* request("POST", `/agents/name/${agent.name}/rpc`, {
        key,
        body: { jsonrpc: "2.0", id: 1, method: "message/send", params: { task_name: "streamed", content: user("one two three"), stream: true } }
      })
      assert.strictEqual(sent.status, 200)
      assert.match(sent.headers["content-type"]!, /application\/x-ndjson/)
      const lines = String(sent.body).trim().split("\n").map((line) => JSON.parse(line))
      assert.deepStrictEqual(lines.map((line) => line.result.type), ["start", "delta", "delta", "delta", "done"])
      assert.deepStrictEqual(lines.map((line) => line.result.delta?.text_delta ?? null), [null, "one", " two", " three", null])
      const parentIds = new Set(lines.map((line) => line.result.parent_task_message.id))
      assert.strictEqual(parentIds.size, 1)
      assert.strictEqual(lines[0].result.parent_task_message.streaming_status, "IN_PROGRESS")
      assert.strictEqual(lines[4].result.parent_task_message.streaming_status, "DONE")
      assert.strictEqual(lines[4].result.parent_task_message.content.content, "one two three")
      // the task was made by name
      const task = yield* client.tasks.getByName({ path: { task_name: "streamed" }, urlParams: {} })
      const message = yield* client.messages.get({ path: { message_id: [...parentIds][0] } })
      assert.strictEqual((message.content as any).content, "one two three")
      assert.strictEqual(message.task_id, task.id)
    }))

  it.scoped("an async agent: task/create and event/send are forwarded; the event is answered; the agent's reply lands as a message; task/cancel", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const { agent, received } = yield* agentOf(key, "async", "echo-async")
      const created = yield* rpc(key, agent.id, "task/create", { name: "job" })
      const task = created.body.result
      assert.deepStrictEqual(received.map((call) => call.method), ["task/create"])
      assert.strictEqual(received[0]!.params.task.id, task.id)

      const sent = yield* rpc(key, agent.id, "event/send", { task_name: "job", content: { type: "text", author: "user", content: "ping" } })
      assert.strictEqual(sent.body.error, null, JSON.stringify(sent.body))
      const event = sent.body.result
      assert.strictEqual(event.sequence_id, 1)
      assert.strictEqual(event.task_id, task.id)
      assert.strictEqual(event.agent_id, agent.id)
      assert.strictEqual(received[1]!.method, "event/send")
      assert.strictEqual(received[1]!.params.event.id, event.id)
      const events = yield* client.events.list({ urlParams: { task_id: task.id, agent_id: agent.id } })
      assert.deepStrictEqual(events.map((e) => e.id), [event.id])
      // the agent replies through POST /messages
      const messages = yield* eventually(
        Effect.map(client.messages.list({ urlParams: { task_id: task.id } }), (listed) =>
          listed.length === 1 ? Option.some(listed) : Option.none())
      )
      assert.strictEqual((Option.getOrThrow(messages)[0]!.content as any).content, "echo: ping")

      // a sync-only method: an error in the body, status 200
      const refused = yield* rpc(key, agent.id, "message/send", { task_id: task.id, content: user("x") })
      assert.strictEqual(refused.status, 200)
      assert.strictEqual(refused.body.result, null)
      assert.strictEqual(refused.body.error.code, -32602)

      const canceled = yield* rpc(key, agent.id, "task/cancel", { task_id: task.id })
      assert.strictEqual(canceled.body.result.status, "CANCELED")
      assert.strictEqual(canceled.body.result.status_reason, "Task canceled by user")
      assert.strictEqual(received.at(-1)!.method, "task/cancel")
      // a final task takes no more events
      const late = yield* rpc(key, agent.id, "event/send", { task_id: task.id, content: { type: "text", content: "late" } })
      assert.strictEqual(late.body.error.code, -32602)
    }))

  it.scoped("on the task's stream (the typed client's Stream): the agent's reply as it is written, then the cancel that ends it", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const { agent } = yield* agentOf(key, "async", "echo-watched")
      const task = (yield* rpc(key, agent.id, "task/create", { name: "watched" })).body.result
      const streams = yield* makeStreams({ apiKey: key })
      const connected = yield* Deferred.make<void>()
      const watching = yield* streams.taskEvents(task.id).pipe(
        Stream.tap((frame) => frame.event.type === "connected" ? Deferred.succeed(connected, undefined) : Effect.void),
        Stream.runCollect,
        Effect.fork
      )
      yield* Deferred.await(connected)
      yield* rpc(key, agent.id, "event/send", { task_id: task.id, content: { type: "text", author: "user", content: "watch this" } })
      // the agent's reply, written through POST /messages, reaches the stream
      yield* eventually(Effect.map(client.messages.list({ urlParams: { task_id: task.id } }), (listed) =>
        listed.length === 1 ? Option.some(listed) : Option.none()))
      yield* rpc(key, agent.id, "task/cancel", { task_id: task.id })
      const frames = Chunk.toArray(yield* Fiber.join(watching))
      assert.deepStrictEqual(frames.map((frame) => frame.event.type), ["connected", "full", "task_updated"])
      assert.deepStrictEqual(frames.map((frame) => frame.id), [undefined, 1, 2])
      const [, reply, canceled] = frames.map((frame) => frame.event as any)
      assert.strictEqual(reply.content.content, "echo: watch this")
      assert.strictEqual(canceled.task.status, "CANCELED")
    }))

  it.scoped("bad parameters are error -32602; an agent that cannot be reached is -32603 and fails the task", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const registered = yield* client.agents.register({
        payload: { name: "gone", description: "nobody listens", acp_url: "http://127.0.0.1:9", acp_type: "sync" }
      })
      const agentId = registered.id
      const bad = yield* rpc(key, agentId, "message/send", { content: { type: "text", content: "no author" } })
      assert.strictEqual(bad.status, 200)
      assert.strictEqual(bad.body.error.code, -32602)
      assert.match(bad.body.error.message, /^Invalid parameters: /)
      const unknownTask = yield* rpc(key, agentId, "task/cancel", { task_id: "nope" })
      assert.strictEqual(unknownTask.body.error.code, -32602)
      const badMethod = yield* rpc(key, agentId, "task/explode", {})
      assert.strictEqual(badMethod.status, 422)

      const sent = yield* rpc(key, agentId, "message/send", { task_name: "doomed", content: user("hi") })
      assert.strictEqual(sent.status, 200)
      assert.strictEqual(sent.body.result, null)
      assert.strictEqual(sent.body.error.code, -32603)
      assert.match(sent.body.error.message, /cannot be reached/)
      const task = yield* client.tasks.getByName({ path: { task_name: "doomed" }, urlParams: {} })
      assert.strictEqual(task.status, "FAILED")
      // the user's message was kept
      const listed = yield* client.messages.list({ urlParams: { task_id: task.id } })
      assert.deepStrictEqual(listed.map((message: any) => message.content.content), ["hi"])
    }))

  it.scoped("a task's workflow query goes to its agent (task/query): its answer, 404 for a query it does not know or another account's task, 502 when it cannot be reached", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const { agent, received } = yield* agentOf(key, "async", "echo-query")
      const task = (yield* rpc(key, agent.id, "task/create", { name: "asked" })).body.result
      yield* rpc(key, agent.id, "event/send", { task_id: task.id, content: user("one") })

      const query = (client: Client, task_id: string, query_name: string) => client.tasks.query({ path: { task_id, query_name } })
      const asked = yield* query(client, task.id, "calls")
      // task/create and event/send were received for the task before the query
      assert.deepStrictEqual(asked, { task_id: task.id, query: "calls", result: { calls: 2 } })
      const call = received.find((call) => call.method === "task/query")!
      assert.deepStrictEqual([call.params.task.id, call.params.agent.id, call.params.query], [task.id, agent.id, "calls"])

      const unknown = yield* Effect.flip(query(client, task.id, "mood"))
      assert.instanceOf(unknown, NotFound)
      assert.match(unknown.detail, /does not answer the query 'mood'/)
      const other = yield* provision()
      const hidden = yield* Effect.flip(query(other.client, task.id, "calls"))
      assert.strictEqual(hidden._tag, "NotFound")

      const registered = yield* client.agents.register({
        payload: { name: "absent", description: "nobody listens", acp_url: "http://127.0.0.1:9", acp_type: "sync" }
      })
      const lonely = (yield* rpc(key, registered.id, "task/create", { name: "lonely" })).body.result
      const unreachable = yield* Effect.flip(query(client, lonely.id, "calls"))
      assert.instanceOf(unreachable, BadGateway)
      assert.match(unreachable.detail, /cannot be reached/)
    }))

  it.scoped("two message/send to one task at once: the second reaches the agent after the first's answer ended", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const { agent, received } = yield* startAgent({ apiKey: key, name: "echo-slow", acpType: "sync", port: 0, wordDelayMs: 40 })
      const task = (yield* rpc(key, agent.id, "task/create", { name: "one-at-a-time" })).body.result
      const [first, second] = yield* Effect.all(
        ["alpha beta gamma", "delta epsilon zeta"].map((text, i) => rpc(key, agent.id, "message/send", { task_id: task.id, content: user(text) }, i)),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual([first.body.error, second.body.error], [null, null])
      const sends = received.filter((call) => call.method === "message/send")
      assert.strictEqual(sends.length, 2)
      assert.isAtLeast(sends[1]!.receivedAt, sends[0]!.answeredAt!)
      // each answered with its own words (the test clock stands still: stored times do not order them)
      assert.deepStrictEqual([first.body.result[0].content.content, second.body.result[0].content.content], ["alpha beta gamma", "delta epsilon zeta"])
      const listed = yield* client.messages.list({ urlParams: { task_id: task.id } })
      assert.strictEqual(listed.length, 4)
    }))

  it.scoped("a lease left by a process that died holding it: the next send waits until it expires, then goes and gives it back", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const sql = yield* SqlClient.SqlClient
      const { agent, received } = yield* startAgent({ apiKey: key, name: "echo-after-crash", acpType: "sync", port: 0 })
      const task = (yield* rpc(key, agent.id, "task/create", { name: "orphaned-lease" })).body.result
      // as a process leaves it when killed answering a send: its lease runs 15 s from its last renewal
      const expires = Date.now() + 400
      yield* sql`UPDATE agent_tasks SET send_lease = ${"a-dead-process"}, send_lease_until = ${expires} WHERE id = ${task.id}`
      const sent = yield* rpc(key, agent.id, "message/send", { task_id: task.id, content: user("anyone there") })
      assert.strictEqual(sent.body.error, null)
      const send = received.find((call) => call.method === "message/send")!
      assert.isAtLeast(performance.timeOrigin + send.receivedAt, expires)
      const [lease] = yield* sql<{ send_lease: string | null }>`SELECT send_lease FROM agent_tasks WHERE id = ${task.id}`
      assert.strictEqual(lease!.send_lease, null)
    }))

  it.scoped("remembering: the conversation kept in the platform's checkpoints goes on in a restarted agent; a schedule of its own runs it", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const { first, task } = yield* Effect.scoped(Effect.gen(function*() {
        const { agent } = yield* startAgent({ apiKey: key, name: "echo-remembers", acpType: "sync", port: 0, remember: true })
        const task = (yield* rpc(key, agent.id, "task/create", { name: "long-chat" })).body.result
        for (const [said, answer] of [["hello", "turn 1: hello"], ["still there", "turn 2: still there"]]) {
          const sent = yield* rpc(key, agent.id, "message/send", { task_id: task.id, content: user(said!) })
          assert.strictEqual(sent.body.error, null, JSON.stringify(sent.body))
          assert.strictEqual(sent.body.result[0].content.content, answer)
        }
        return { first: agent, task }
      }))
      // the first agent stopped; another starts with nothing in memory, as after a restart
      const { agent, schedule } = yield* startAgent({ apiKey: key, name: "echo-remembers", acpType: "sync", port: 0, remember: true, scheduleEverySeconds: 1, scheduleInput: "wake up" })
      assert.strictEqual(agent.id, first.id)
      const sent = yield* rpc(key, agent.id, "message/send", { task_id: task.id, content: user("me again") })
      assert.strictEqual(sent.body.result[0].content.content, "turn 3: me again")
      const history = yield* client.checkpoints.list({ payload: { thread_id: task.id } })
      assert.deepStrictEqual(history.map((checkpoint) => checkpoint.metadata.step), [3, 2, 1])
      const latest = yield* client.checkpoints.getTuple({ payload: { thread_id: task.id } })
      assert.deepStrictEqual(JSON.parse(Buffer.from(latest!.blobs[0]!.blob!, "base64").toString("utf8")), ["hello", "still there", "me again"])

      // the schedule: a fire's task gets the input, answered as the first turn of its own conversation
      assert.strictEqual(schedule!.name, "echo-remembers-every-1s")
      const fired = yield* eventually(Effect.map(
        request("GET", `/tasks?agent_id=${agent.id}&limit=100`, { key }),
        (response) => Option.fromNullable((response.body as Array<any>).find((t) => String(t.name).startsWith(`scheduled-run:${schedule!.id}:`) && t.task_metadata?.scheduled_input_delivered === true))
      ))
      assert.isTrue(Option.isSome(fired), "a scheduled run")
      const messages = yield* request("GET", `/messages?task_id=${Option.getOrThrow(fired).id}&order_direction=asc`, { key })
      assert.deepStrictEqual((messages.body as Array<any>).map((m) => m.content.content), ["wake up", "turn 1: wake up"])
      yield* client.agentRunSchedules.pauseByName({ path: { agent_id: agent.id, schedule_name: schedule!.name }, payload: null })
    }))
})
