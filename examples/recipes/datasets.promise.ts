import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const dataset = await platform.datasets.create({
  payload: { name: "Support questions", tags: ["support"], data: [{ question: "How do I reset my password?" }] }
})
await platform.datasets.batchCreateItems({
  payload: { dataset_id: dataset.id, data: [{ question: "Where is my invoice?" }, { question: "Can I change my plan?" }] }
})
const now = await platform.datasets.listItems({ urlParams: { dataset_id: dataset.id, sort_order: "asc" } })
const first = await platform.datasets.listItems({ urlParams: { dataset_id: dataset.id, version: 1 } })
const read = await platform.datasets.get({ path: { dataset_id: dataset.id }, urlParams: {} })
console.log(read.current_version_num, now.items.map((item) => item.data.question), first.total)
await platform.close()
