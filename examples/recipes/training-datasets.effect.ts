import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const rows = [{ input: "What is 2 + 2?", output: "4" }, { input: "Capital of France?", output: "Paris" }]
  const form = new FormData()
  form.append("file", new Blob([rows.map((row) => JSON.stringify(row)).join("\n")]), "train.jsonl")
  form.append("account_id", account_id)
  form.append("name", "arithmetic")
  form.append("schema_type", "GENERATION")
  const dataset = yield* platform.trainingDatasets.create({ payload: form })
  const contents = yield* platform.trainingDatasets.contents({ path: { training_dataset_id: dataset.id } })
  const page = yield* platform.trainingDatasets.list({ urlParams: { account_id } })
  const deleted = yield* platform.trainingDatasets.delete({ path: { training_dataset_id: dataset.id } })
  yield* Console.log(dataset.data_source, contents.map((row) => row.output), page.items.some((item) => item.id === dataset.id), deleted.success)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
