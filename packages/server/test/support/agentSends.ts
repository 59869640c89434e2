/**
 * `message/send` to one task through several server processes at once (docs/agent-tasks.md
 * "Calling agents"): the agent, an ACP server of the test's own that takes 150 ms to answer,
 * must never be answering two of them at a time. Used by the two-process suites on SQLite and
 * PostgreSQL.
 */
import { assert } from "@effect/vitest"
import type { Client } from "@platform-kit/client"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** An agent that answers `message/send` with a `start`, then 150 ms later a `done`: when each call came and was answered. */
const slowAgent = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly calls: Array<{ readonly at: number; answered?: number }>; readonly server: Http.Server }>((resume) => {
    const calls: Array<{ readonly at: number; answered?: number }> = []
    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        const line = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id: body.id, result, error: null }) + "\n"
        if (body.method !== "message/send") {
          response.writeHead(200, { "content-type": "application/json" })
          return void response.end(line({ status: "processing" }))
        }
        const call: { readonly at: number; answered?: number } = { at: performance.now() }
        calls.push(call)
        response.writeHead(200, { "content-type": "application/x-ndjson" })
        response.write(line({ type: "start", index: 0, content: { type: "text", author: "agent", content: "thinking" } }))
        setTimeout(() => {
          call.answered = performance.now()
          response.end(line({ type: "done", index: 0 }))
        }, 150)
      })
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, server })))
  }),
  ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

/**
 * Registers the slow agent through `clients[0]`, makes a task, and sends it 6 messages at once
 * through the clients in turn: every send is answered, and the agent took each only after it had
 * answered the one before.
 */
export const assertSendsSerialAcrossProcesses = (clients: ReadonlyArray<Client>, name: string) =>
  Effect.scoped(Effect.gen(function*() {
    const agent = yield* slowAgent
    const registered = yield* clients[0]!.agents.register({ payload: { name, description: "slow", acp_url: agent.url, acp_type: "sync" } })
    const made = yield* clients[0]!.agents.rpc({ path: { agent_id: registered.id }, payload: { method: "task/create", params: { name } } })
    const taskId = (made.result as { readonly id: string }).id
    const answers = yield* Effect.forEach(
      [0, 1, 2, 3, 4, 5],
      (i) =>
        clients[i % clients.length]!.agents.rpc({
          path: { agent_id: registered.id },
          payload: { method: "message/send", params: { task_id: taskId, content: { type: "text", author: "user", content: `question ${i}` } } }
        }),
      { concurrency: "unbounded" }
    )
    assert.deepStrictEqual(answers.map((answer) => answer.error), Array(6).fill(null))
    const calls = [...agent.calls].sort((a, b) => a.at - b.at)
    assert.strictEqual(calls.length, 6)
    for (let i = 1; i < calls.length; i++) assert.isAtLeast(calls[i]!.at, calls[i - 1]!.answered!, `send ${i} reached the agent before the one before it was answered`)
  }))
