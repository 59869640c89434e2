import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const { id } = await platform.evaluations.create({
  urlParams: {},
  payload: {
    name: "capitals", data: [{ answer: "Paris", expected: "Paris" }, { answer: "Milan", expected: "Rome" }],
    tasks: [{ task_type: "metric", alias: "score", configuration: { type: "f1", candidate: "item.answer", reference: "item.expected" } }]
  }
})
const get = () => platform.evaluations.get({ path: { evaluation_id: id }, urlParams: {} })
let evaluation = await get()
while (evaluation.status === "running") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  evaluation = await get()
}
const items = await platform.evaluations.listItems({ urlParams: { evaluation_id: id, sort_order: "asc" } })
console.log(evaluation.status, items.items.map((item) => item.data.score))
await platform.close()
