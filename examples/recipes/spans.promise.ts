import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const span = {
  id: "span-2",
  trace_id: "trace-2",
  name: "answer",
  type: "COMPLETION" as const,
  start_timestamp: "2026-12-07T12:00:00.000Z",
  input: { question: "What is a trace?" }
}
// at its start, then at its end: the same id, replaced whole
await platform.spans.upsertBatch({ payload: { items: [span] } })
await platform.spans.upsertBatch({
  payload: {
    items: [{ ...span, end_timestamp: "2026-12-07T12:00:00.800Z", status: "SUCCESS", output: { answer: "The spans of one request" } }]
  }
})
const found = await platform.spans.search({ urlParams: { limit: 10 }, payload: { trace_ids: ["trace-2"], search_texts: ["one request"] } })
const stored = await platform.spans.get({ path: { span_id: "span-2" } })
console.log(found.items.map((each) => [each.id, each.end_timestamp]), stored.output)
await platform.close()
