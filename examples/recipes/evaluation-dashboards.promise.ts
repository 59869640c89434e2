import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const dashboards = platform.evaluationDashboards
const data = [{ score: 1 }, { score: 0 }, { score: 0.5 }]
const { id: evaluation_id } = await platform.evaluations.create({ urlParams: {}, payload: { name: "quiz", data } })
const path = { dashboard_id: (await dashboards.create({ payload: { name: "quiz", evaluation_id } })).id }
const mean = { type: "AGGREGATE", function: "AVG", column: "score", source: "data" } as const
const query = { select: [{ expression: mean, alias: "mean" }], groupBy: [], orderBy: [], limit: null, evaluation_ids: [] }
await dashboards.addWidget({ path, payload: { title: "Mean score", type: "metric", query } })
let dashboard = await dashboards.get({ path, urlParams: {} })
while (dashboard.widget_results[0]!.computation_status === "pending") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  dashboard = await dashboards.get({ path, urlParams: {} })
}
console.log(dashboard.widget_results[0]!.computed_result)
await platform.close()
