import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const form = new FormData()
form.append("file", new Blob([JSON.stringify({ input: "Where is my order?", output: "Let me check that for you." })]), "support.jsonl")
form.append("account_id", process.env.PLATFORM_ACCOUNT_ID!)
form.append("name", "support-transcripts")
form.append("schema_type", "GENERATION")
const dataset = await platform.trainingDatasets.create({ payload: form })
let job = await platform.fineTuningJobs.create({
  payload: {
    training_dataset_id: dataset.id, base_model_id: "base-chat", account_id: process.env.PLATFORM_ACCOUNT_ID!,
    vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 2 } }
  }
})
while (job.status === "PENDING" || job.status === "RUNNING") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  job = await platform.fineTuningJobs.get({ path: { fine_tuning_job_id: job.id } })
}
const events = await platform.fineTuningJobs.events({ path: { fine_tuning_job_id: job.id } })
const model = await platform.models.get({ path: { model_id: job.fine_tuned_model_id! }, urlParams: {} })
console.log(job.status, events.map((event) => event.message), model.base_model_id)
await platform.close()
