import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
const rows = [{ input: "What is 2 + 2?", output: "4" }, { input: "Capital of France?", output: "Paris" }]
const form = new FormData()
form.append("file", new Blob([rows.map((row) => JSON.stringify(row)).join("\n")]), "train.jsonl")
form.append("account_id", account_id)
form.append("name", "arithmetic")
form.append("schema_type", "GENERATION")
const dataset = await platform.trainingDatasets.create({ payload: form })
const contents = await platform.trainingDatasets.contents({ path: { training_dataset_id: dataset.id } })
const page = await platform.trainingDatasets.list({ urlParams: { account_id } })
const deleted = await platform.trainingDatasets.delete({ path: { training_dataset_id: dataset.id } })
console.log(dataset.data_source, contents.map((row) => row.output), page.items.some((item) => item.id === dataset.id), deleted.success)
await platform.close()
