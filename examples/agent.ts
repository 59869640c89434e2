/**
 * Example 5: a small agent. It serves the ACP protocol the platform calls (JSON-RPC 2.0 posted to
 * `{acp_url}/api`, docs/agent-tasks.md "Calling agents") and registers itself with the platform
 * through the typed client:
 *
 * - as a `sync` agent, it answers `message/send` by streaming back the user's text, word by word
 *   (a `start`, one `delta` per word, a `done`: NDJSON lines), `AGENT_WORD_DELAY_MS` apart;
 * - as an `async` agent, it answers every call at once (`{"status": "processing"}`) and, for an
 *   `event/send`, writes its reply into the task afterwards (`POST /messages`, through the client).
 *
 * It also answers the task query `calls` (`task/query`, which the platform sends for `GET
 * /tasks/{id}/query/{name}`): how many calls (queries aside) it received for the task; another query is a
 * JSON-RPC "method not found" (-32601). Every call must carry the `x-agent-api-key` its
 * registration answered.
 *
 *   PLATFORM_BASE_URL=http://127.0.0.1:8080 PLATFORM_API_KEY=pk_... AGENT_PORT=8090 \
 *     AGENT_NAME=echo AGENT_ACP_TYPE=sync npx tsx examples/agent.ts
 */
import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { makeClient } from "@platform-kit/client"
import { Config, Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface AgentOptions {
  /** The platform's address (omitted: the base of the `HttpClient` in context) and an API key of the account the agent registers in. */
  readonly baseUrl?: string | undefined
  readonly apiKey: string
  readonly name: string
  readonly acpType: "sync" | "async"
  /** Where the agent listens (0: any free port) on 127.0.0.1. */
  readonly port: number
  /** How long a sync agent takes per word it streams back (default 0), as a model generating would. */
  readonly wordDelayMs?: number | undefined
}

/** A call the agent received: its method and parameters, when it came and when it was answered (`performance.now()`). */
export interface AgentCall {
  readonly method: string
  readonly params: any
  readonly receivedAt: number
  answeredAt?: number
}

/** The text of a message content (what the echo repeats). */
const textOf = (content: any): string =>
  content?.type === "text" || content?.type === undefined ? String(content?.content ?? "") : JSON.stringify(content)

/**
 * Starts the agent and registers it: answers the registered agent, the calls it received (in
 * order), and its address. Stops with the scope.
 */
export const startAgent = (options: AgentOptions) =>
  Effect.gen(function*() {
    const client = yield* makeClient({ baseUrl: options.baseUrl, apiKey: options.apiKey })
    const received: Array<AgentCall> = []
    let key: string | undefined
    const reply = (taskId: string, text: string) =>
      Effect.runPromise(
        client.messages.create({ payload: { task_id: taskId, content: { type: "text", author: "agent", content: `echo: ${text}` } } }).pipe(
          Effect.ignoreLogged
        )
      )

    const handle = (body: any, response: Http.ServerResponse) => {
      const line = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id: body.id, result, error: null }) + "\n"
      const call: AgentCall = { method: body.method, params: body.params, receivedAt: performance.now() }
      received.push(call)
      response.once("finish", () => (call.answeredAt = performance.now()))
      if (body.method === "message/send" && options.acpType === "sync") {
        const words = textOf(body.params.content).split(/\s+/).filter((word) => word.length > 0)
        response.writeHead(200, { "content-type": "application/x-ndjson" })
        response.write(line({ type: "start", index: 0, content: { type: "text", author: "agent", content: "" } }))
        const next = (i: number): void => {
          if (i === words.length) return void response.end(line({ type: "done", index: 0 }))
          response.write(line({ type: "delta", index: 0, delta: { type: "text", text_delta: i === 0 ? words[i] : ` ${words[i]}` } }))
          if ((options.wordDelayMs ?? 0) > 0) setTimeout(() => next(i + 1), options.wordDelayMs)
          else next(i + 1)
        }
        next(0)
        return
      }
      response.writeHead(200, { "content-type": "application/json" })
      if (body.method === "task/query") {
        const taskId = body.params.task.id
        if (body.params.query !== "calls") {
          response.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: null, error: { code: -32601, message: `Unknown query ${body.params.query}` } }))
          return
        }
        response.end(line({ calls: received.filter((call) => call.method !== "task/query" && call.params?.task?.id === taskId).length }))
        return
      }
      response.end(line({ status: "processing" }))
      if (body.method === "event/send" && body.params.event?.content) void reply(body.params.task.id, textOf(body.params.event.content))
    }

    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        if (request.method !== "POST" || request.url !== "/api") {
          response.writeHead(404).end()
          return
        }
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        if (key === undefined || request.headers["x-agent-api-key"] !== key) {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: null, error: { code: -32601, message: "Unauthorized" } }))
          return
        }
        handle(body, response)
      })
    })
    const url = yield* Effect.acquireRelease(
      Effect.async<string>((resume) => {
        server.listen(options.port, "127.0.0.1", () => resume(Effect.succeed(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)))
      }),
      () => Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
    )
    const agent = yield* client.agents.register({
      payload: { name: options.name, description: `An echo agent (${options.acpType})`, acp_url: url, acp_type: options.acpType }
    })
    key = agent.agent_api_key
    return { agent, received, url } as const
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = Config.all({
    baseUrl: Config.string("PLATFORM_BASE_URL").pipe(Config.withDefault("http://127.0.0.1:8080")),
    apiKey: Config.string("PLATFORM_API_KEY"),
    name: Config.string("AGENT_NAME").pipe(Config.withDefault("echo")),
    acpType: Config.literal("sync", "async")("AGENT_ACP_TYPE").pipe(Config.withDefault("sync" as const)),
    port: Config.integer("AGENT_PORT").pipe(Config.withDefault(8090)),
    wordDelayMs: Config.integer("AGENT_WORD_DELAY_MS").pipe(Config.withDefault(0))
  })
  NodeRuntime.runMain(
    Effect.gen(function*() {
      const { agent, url } = yield* startAgent(yield* options)
      yield* Effect.log(`Agent ${agent.name} (${agent.id}) listening at ${url}`)
      return yield* Effect.never
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
  )
}
