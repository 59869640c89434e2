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
 * With `remember` (`AGENT_REMEMBER=1`) a sync agent keeps each task's conversation in the
 * platform's checkpoint store (docs/agent-tasks.md "Checkpoints", as LangGraph's checkpointer
 * does): each `message/send` reads the thread's latest checkpoint, adds the user's text to its
 * `messages` channel and puts the next checkpoint, and the answer starts with the turn's number.
 * The agent holds nothing in memory: a restarted agent goes on where the last one stopped. With
 * `scheduleEverySeconds` (`AGENT_SCHEDULE_EVERY_SECONDS`) it also schedules itself: a run schedule
 * (docs/agent-tasks.md "Run schedules") that sends it `scheduleInput` that often, in a task of its own.
 *
 * It also answers the task query `calls` (`task/query`, which the platform sends for `GET
 * /tasks/{id}/query/{name}`): how many calls (queries aside) it received for the task; another query is a
 * JSON-RPC "method not found" (-32601). Every call must carry the `x-agent-api-key` its
 * registration answered.
 *
 *   PLATFORM_BASE_URL=http://127.0.0.1:8080 PLATFORM_API_KEY=pk_... AGENT_PORT=8090 \
 *     AGENT_NAME=echo AGENT_ACP_TYPE=sync AGENT_REMEMBER=1 AGENT_SCHEDULE_EVERY_SECONDS=60 npx tsx examples/agent.ts
 */
import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { makeClient } from "@platform-kit/client"
import { Config, Effect, Option } from "effect"
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
  /** A sync agent keeps each task's conversation in the platform's checkpoints (default false). */
  readonly remember?: boolean | undefined
  /** Schedule the agent every that many seconds (a run schedule named `<name>-every-<n>s`), sending `scheduleInput`. */
  readonly scheduleEverySeconds?: number | undefined
  readonly scheduleInput?: string | undefined
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

/** The id of a conversation's checkpoint at `turn`: LangGraph's ids sort by time, these by turn. */
const checkpointIdOf = (turn: number) => `1ef00000-0000-6000-8000-${String(turn).padStart(12, "0")}`

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

    /**
     * The conversation of `taskId` with `text` added, kept as the next checkpoint of its thread:
     * answers the turn's number (1 for the first message).
     */
    const remember = (taskId: string, text: string) =>
      Effect.runPromise(Effect.gen(function*() {
        const latest = yield* client.checkpoints.getTuple({ payload: { thread_id: taskId } })
        const kept = latest?.blobs.find((blob) => blob.channel === "messages")?.blob ?? null
        const messages: Array<string> = [...(kept === null ? [] : JSON.parse(Buffer.from(kept, "base64").toString("utf8"))), text]
        const turn = messages.length
        const id = checkpointIdOf(turn)
        yield* client.checkpoints.put({
          payload: {
            thread_id: taskId,
            checkpoint_id: id,
            ...(latest === null ? {} : { parent_checkpoint_id: latest.checkpoint_id }),
            checkpoint: { v: 4, id, ts: new Date().toISOString(), channel_values: {}, channel_versions: { messages: String(turn) }, versions_seen: {} },
            metadata: { source: "loop", step: turn },
            blobs: [{ channel: "messages", version: String(turn), type: "json", blob: Buffer.from(JSON.stringify(messages)).toString("base64") }]
          }
        })
        return turn
      }))

    const handle = (body: any, response: Http.ServerResponse, seen?: AgentCall) => {
      const line = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id: body.id, result, error: null }) + "\n"
      const call: AgentCall = seen ?? { method: body.method, params: body.params, receivedAt: performance.now() }
      if (seen === undefined) {
        received.push(call)
        response.once("finish", () => (call.answeredAt = performance.now()))
      }
      if (body.method === "message/send" && options.acpType === "sync" && options.remember === true && body.params.turn === undefined) {
        // the turn first (the checkpoint written), then the answer as below
        void remember(body.params.task.id, textOf(body.params.content)).then(
          (turn) => handle({ ...body, params: { ...body.params, turn } }, response, call),
          (error) => {
            response.writeHead(200, { "content-type": "application/json" })
            response.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: null, error: { code: -32603, message: String(error) } }))
          }
        )
        return
      }
      if (body.method === "message/send" && options.acpType === "sync") {
        const said = textOf(body.params.content)
        const words = (body.params.turn === undefined ? said : `turn ${body.params.turn}: ${said}`).split(/\s+/).filter((word) => word.length > 0)
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
    const every = options.scheduleEverySeconds
    const schedule = every === undefined ? undefined : yield* client.agentRunSchedules.create({
      path: { agent_id: agent.id },
      payload: { name: `${options.name}-every-${every}s`, initial_input: { content: options.scheduleInput ?? "scheduled run" }, interval_seconds: every }
    }).pipe(
      // started again: the schedule made by an earlier start
      Effect.catchTag("Conflict", () => client.agentRunSchedules.getByName({ path: { agent_id: agent.id, schedule_name: `${options.name}-every-${every}s` } }))
    )
    return { agent, received, url, schedule } as const
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = Config.all({
    baseUrl: Config.string("PLATFORM_BASE_URL").pipe(Config.withDefault("http://127.0.0.1:8080")),
    apiKey: Config.string("PLATFORM_API_KEY"),
    name: Config.string("AGENT_NAME").pipe(Config.withDefault("echo")),
    acpType: Config.literal("sync", "async")("AGENT_ACP_TYPE").pipe(Config.withDefault("sync" as const)),
    port: Config.integer("AGENT_PORT").pipe(Config.withDefault(8090)),
    wordDelayMs: Config.integer("AGENT_WORD_DELAY_MS").pipe(Config.withDefault(0)),
    remember: Config.boolean("AGENT_REMEMBER").pipe(Config.withDefault(false)),
    scheduleEverySeconds: Config.option(Config.integer("AGENT_SCHEDULE_EVERY_SECONDS")).pipe(Config.map(Option.getOrUndefined))
  })
  NodeRuntime.runMain(
    Effect.gen(function*() {
      const { agent, url } = yield* startAgent(yield* options)
      yield* Effect.log(`Agent ${agent.name} (${agent.id}) listening at ${url}`)
      return yield* Effect.never
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
  )
}
