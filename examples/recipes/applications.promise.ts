import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
const spec = await platform.applicationSpecs.create({ payload: { name: "helpdesk", description: "answers", account_id } })
// the SDK's completion app: a text input, a completion on the built-in model, a text output
const variant = await platform.applicationVariants.create({
  payload: {
    name: "v0", version: "V0", application_spec_id: spec.id, account_id,
    configuration: {
      nodes: [
        { id: "input_node", application_node_schema_id: "text_input_schema" },
        { id: "completion_node", application_node_schema_id: "completion_model_schema", configuration: { completion_model_id: { value: "builtin" } } },
        { id: "output_node", application_node_schema_id: "text_output_schema" }
      ],
      edges: [
        { from_node: "input_node", from_field: "input-text", to_node: "completion_node", to_field: "prompt" },
        { from_node: "completion_node", from_field: "completion", to_node: "output_node", to_field: "output-text" }
      ]
    }
  }
})
const answer = await platform.applications.process({
  path: { application_variant_id: variant.id },
  payload: { inputs: { input_node: { "input-text": "Hello there" } } }
})
let deployment = await platform.applications.createDeployment({
  payload: { name: "app", endpoint: "https://example.org", application_variant_id: variant.id, is_active: true, account_id }
})
while (deployment.status === "PENDING") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  deployment = await platform.applications.getDeployment({ path: { application_deployment_id: deployment.id } })
}
const requests = await platform.applications.scalarMetric({
  path: { application_spec_id: spec.id, metric_id: "total_requests" },
  urlParams: {}
})
console.log(answer["output-text"], deployment.status, requests.value)
await platform.close()
