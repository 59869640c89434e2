import { makePromiseClient } from "@platform-kit/client"
import { Task } from "@platform-kit/schema"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const agent = await platform.agents.register({
  payload: { name: "echo", description: "Echoes", acp_url: "http://127.0.0.1:8090", acp_type: "sync" }
})
const created = await platform.agents.rpc({ path: { agent_id: agent.id }, payload: { method: "task/create", params: {} } })
if (!(created.result instanceof Task)) throw new Error(`task/create: ${created.error?.message}`)
const task_id = created.result.id
await platform.messages.create({ payload: { task_id, content: { type: "text", author: "user", content: "Hello!" } } })
await platform.states.create({ payload: { task_id, agent_id: agent.id, state: { step: 1 } } })
const messages = await platform.messages.list({ urlParams: { task_id } })
const task = await platform.tasks.complete({ path: { task_id }, payload: { reason: "done" } })
console.log(messages.map((message) => message.content), task.status)
await platform.close()
