import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const span = { trace_id: "trace-1", span_id: "span-1" }
// the span assessed, stored first (as the SDK's tracer would have sent it)
await platform.spans.upsertBatch({
  payload: { items: [{ id: "span-1", trace_id: "trace-1", name: "answer", start_timestamp: "2026-12-07T12:00:00.000Z" }] }
})
const rating = await platform.spanAssessments.create({ payload: { ...span, assessment_type: "rating", rating: 3 } })
await platform.spanAssessments.create({ payload: { ...span, assessment_type: "comment", comment: "Cites the wrong page" } })
const trace = await platform.spanAssessments.list({ urlParams: { trace_id: "trace-1" } })
await platform.spanAssessments.update({
  path: { assessment_id: rating.assessment_id },
  payload: { rating: 4, comment: "Right once the page is fixed" }
})
const ratings = await platform.spanAssessments.list({ urlParams: { span_id: "span-1", assessment_type: "rating" } })
await platform.spanAssessments.delete({ path: { assessment_id: rating.assessment_id } })
console.log(trace.items.map((each) => each.assessment_type), ratings.items.map((each) => [each.rating, each.comment]))
await platform.close()
