import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
let deployment = await platform.applications.createDeployment({
  payload: { name: "app", endpoint: "https://example.org", application_variant_id: "v1", is_active: true, account_id }
})
while (deployment.status === "PENDING") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  deployment = await platform.applications.getDeployment({ path: { application_deployment_id: deployment.id } })
}
const spec = { application_spec_id: "app-spec" }
const usage = { start_timestamp: new Date().toISOString(), duration_ms: 840, input_tokens: 120, output_tokens: 45 }
await platform.applications.recordInteraction({ path: spec, payload: { application_variant_id: "v1", ...usage } })
const tokens = await platform.applications.scalarMetric({ path: { ...spec, metric_id: "total_tokens" }, urlParams: {} })
console.log(deployment.status, tokens.value, tokens.unit)
await platform.close()
