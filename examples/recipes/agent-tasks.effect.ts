import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Task } from "@platform-kit/schema"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const agent = yield* platform.agents.register({
    payload: { name: "echo", description: "Echoes", acp_url: "http://127.0.0.1:8090", acp_type: "sync" }
  })
  const { error, result } = yield* platform.agents.rpc({ path: { agent_id: agent.id }, payload: { method: "task/create", params: {} } })
  if (!(result instanceof Task)) return yield* Effect.dieMessage(`task/create: ${error?.message}`)
  const task_id = result.id
  yield* platform.messages.create({ payload: { task_id, content: { type: "text", author: "user", content: "Hello!" } } })
  yield* platform.states.create({ payload: { task_id, agent_id: agent.id, state: { step: 1 } } })
  const messages = yield* platform.messages.list({ urlParams: { task_id } })
  const task = yield* platform.tasks.complete({ path: { task_id }, payload: { reason: "done" } })
  yield* Console.log(messages.map((message) => message.content), task.status)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
