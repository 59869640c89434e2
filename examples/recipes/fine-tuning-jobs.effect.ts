import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const { accountId } = yield* PlatformClientConfig
  const form = new FormData()
  form.append("file", new Blob([JSON.stringify({ input: "Where is my order?", output: "Let me check that for you." })]), "support.jsonl")
  form.append("account_id", accountId!)
  form.append("name", "support-transcripts")
  form.append("schema_type", "GENERATION")
  const dataset = yield* platform.trainingDatasets.create({ payload: form })
  const { id } = yield* platform.fineTuningJobs.create({
    payload: {
      training_dataset_id: dataset.id, base_model_id: "base-chat", account_id: accountId!,
      vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 2 } }
    }
  })
  const job = yield* platform.fineTuningJobs.get({ path: { fine_tuning_job_id: id } }).pipe(
    Effect.delay("500 millis"),
    Effect.repeat({ until: (job) => job.status !== "PENDING" && job.status !== "RUNNING" })
  )
  const events = yield* platform.fineTuningJobs.events({ path: { fine_tuning_job_id: id } })
  const model = yield* platform.models.get({ path: { model_id: job.fine_tuned_model_id! }, urlParams: {} })
  yield* Console.log(job.status, events.map((event) => event.message), model.base_model_id)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
