import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const spec = yield* platform.applicationSpecs.create({ payload: { name: "helpdesk", description: "answers", account_id } })
  // the SDK's completion app: a text input, a completion on the built-in model, a text output
  const variant = yield* platform.applicationVariants.create({
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
  const answer = yield* platform.applications.process({
    path: { application_variant_id: variant.id },
    payload: { inputs: { input_node: { "input-text": "Hello there" } } }
  })
  const { id } = yield* platform.applications.createDeployment({
    payload: { name: "app", endpoint: "https://example.org", application_variant_id: variant.id, is_active: true, account_id }
  })
  const deployment = yield* platform.applications.getDeployment({ path: { application_deployment_id: id } }).pipe(
    Effect.delay("500 millis"),
    Effect.repeat({ until: (deployment) => deployment.status !== "PENDING" })
  )
  const requests = yield* platform.applications.scalarMetric({
    path: { application_spec_id: spec.id, metric_id: "total_requests" },
    urlParams: {}
  })
  yield* Console.log(answer["output-text"], deployment.status, requests.value)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
