import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const dashboards = platform.evaluationDashboards
  const data = [{ score: 1 }, { score: 0 }, { score: 0.5 }]
  const { id: evaluation_id } = yield* platform.evaluations.create({ urlParams: {}, payload: { name: "quiz", data } })
  const path = { dashboard_id: (yield* dashboards.create({ payload: { name: "quiz", evaluation_id } })).id }
  const mean = { type: "AGGREGATE", function: "AVG", column: "score", source: "data" } as const
  const query = { select: [{ expression: mean, alias: "mean" }], groupBy: [], orderBy: [], limit: null, evaluation_ids: [] }
  yield* dashboards.addWidget({ path, payload: { title: "Mean score", type: "metric", query } })
  const dashboard = yield* dashboards.get({ path, urlParams: {} }).pipe(
    Effect.delay("500 millis"),
    Effect.repeat({ until: (dashboard) => dashboard.widget_results[0]!.computation_status !== "pending" })
  )
  yield* Console.log(dashboard.widget_results[0]!.computed_result)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
