/**
 * The handlers of an application's dashboards and metric timeseries, wired into the `applications`
 * group by `../http.ts`, which lends them its checks on the query window and on the spec's account.
 */
import type {
  ApplicationDashboardId,
  MetricId,
  MetricQuery,
  ValidationError
} from "@platform-kit/schema"
import { Clock, Effect } from "effect"
import { accountsForRead } from "../../auth/access.js"
import { ApplicationMetrics } from "../metrics.js"
import { dashboards } from "./layouts.js"
import { timeseries, windowOf } from "./timeseries.js"

/** The checks the scalar metric makes, shared: 422 for an inverted window, 404 for another account's spec. */
export interface SpecChecks<E, R> {
  readonly checkWindow: (query: typeof MetricQuery.Type) => Effect.Effect<unknown, ValidationError>
  /** 404 (`NotFound`) for a stored spec of another account; 403 for a foreign selected account. */
  readonly notAnotherAccountsSpec: (specId: string) => Effect.Effect<unknown, E, R>
}

export const DashboardHandlers = Effect.gen(function*() {
  const metrics = yield* ApplicationMetrics

  const timeseriesMetric = <E, R>(
    { path, urlParams }: {
      readonly path: { readonly application_spec_id: string; readonly metric_id: MetricId }
      readonly urlParams: typeof MetricQuery.Type
    },
    checks: SpecChecks<E, R>
  ) =>
    Effect.gen(function*() {
      yield* checks.checkWindow(urlParams)
      const accountIds = yield* accountsForRead(urlParams.account_id)
      yield* checks.notAnotherAccountsSpec(path.application_spec_id)
      const { fromMs, toMs } = windowOf(urlParams, yield* Clock.currentTimeMillis)
      return yield* timeseries(metrics, path.metric_id, {
        accountIds,
        applicationSpecId: path.application_spec_id,
        fromMs,
        toMs,
        variants: urlParams.variants ?? [],
        tokenType: urlParams.token_type ?? "total",
        percentile: urlParams.percentile ?? 50,
        nodeId: urlParams.node_id
      }, urlParams.token_type !== undefined)
    })

  const dashboard = <E, R>(
    { path }: {
      readonly path: { readonly application_spec_id: string; readonly application_dashboard_id: ApplicationDashboardId }
    },
    checks: SpecChecks<E, R>
  ) => Effect.as(checks.notAnotherAccountsSpec(path.application_spec_id), dashboards[path.application_dashboard_id])

  return { timeseriesMetric, dashboard } as const
})
