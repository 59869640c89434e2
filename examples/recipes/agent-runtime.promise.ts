import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
let deployment = await platform.agentRuntime.create({
  payload: { build_id: "build-1", agent_name: "echo", preview_label: "pr-7" }
})
while (deployment.status !== "READY") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  deployment = await platform.agentRuntime.get({ path: { deployment_id: deployment.id } })
}
const listed = await platform.agentRuntime.list({ urlParams: { agent_name: "echo" } })
const deleted = await platform.agentRuntime.delete({ path: { deployment_id: deployment.id } })
console.log(listed.items.map((each) => `${each.build_id} ${each.status}`), deleted.deploy_events.map((event) => event.reason))
await platform.close()
