import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const model = await platform.models.create({
  payload: { name: "echo", model_type: "CHAT_COMPLETION", account_id: process.env.PLATFORM_ACCOUNT_ID! }
})
const deployment = await platform.models.createDeployment({
  path: { model_instance_id: model.id },
  payload: { name: "local", model_creation_parameters: { provider: "builtin" } }
})
const reply = await platform.inference.chatCompletions({
  path: { model_deployment_id: deployment.id },
  payload: { chat_history: [], prompt: "Hello!" }
})
// a v5 managed model: `deploying` now, `ready` once its (simulated) deployment ends
const managed = await platform.modelsV5.create({ payload: { name: "llama-chat", vendor_configuration: { model: "llama-3-8b" } } })
console.log(deployment.status, reply.completions[0]?.[0], managed.status)
await platform.close()
