import { SqlClient } from "@effect/sql"
import {
  ApplicationDeployment,
  ApplicationGraphError,
  ApplicationGraphInvalid,
  ApplicationInteraction,
  ApplicationValid,
  MetricQuery,
  NotFound,
  pageOf,
  type UpdateApplicationDeployment,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, checkSelectedAccount, createdBy } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { DeploymentsRepo } from "./DeploymentsRepo.js"
import { validateGraph } from "./graph.js"
import { InteractionsRepo } from "./InteractionsRepo.js"
import { ProcessHandlers, ProcessLive } from "./process/http.js"
import { VariantsRepo } from "./specs/SpecsRepo.js"
import { ApplicationMetrics } from "./metrics.js"
import { DashboardHandlers } from "./dashboards/http.js"
import type { ImplementGroup } from "../http/groups.js"
import { storedResponse } from "../http/storedResponses.js"

/** 422 at `["query","to_ts"]` when the window ends before it starts. */
const checkWindow = (query: typeof MetricQuery.Type) =>
  query.from_ts !== undefined && query.to_ts !== undefined && query.to_ts < query.from_ts
    ? Effect.fail(
      new ValidationError({
        detail: [
          new ValidationIssue({
            loc: ["query", "to_ts"],
            msg: "to_ts must not be before from_ts",
            type: "value_error",
            input: String(query.to_ts),
            ctx: { from_ts: query.from_ts }
          })
        ]
      })
    )
    : Effect.void

/**
 * What a PATCH makes of a deployment (docs/applications.md): a new `name`; `is_active: false`
 * stops it (`STOPPED`, whatever it was doing: a provisioning under way is dropped); `is_active:
 * true` on a deployment that is inactive, stopped or failed deploys it again (`PENDING`, a new
 * activation whose lifecycle the handler starts); on one active and `PENDING` or `READY` it
 * changes nothing.
 */
const updated = (current: ApplicationDeployment, patch: UpdateApplicationDeployment) => {
  const name = patch.name ?? current.name
  if (patch.is_active === false) {
    return { next: new ApplicationDeployment({ ...current, name, is_active: false, status: "STOPPED" }), activate: false }
  }
  const activate = patch.is_active === true &&
    (!current.is_active || current.status === "STOPPED" || current.status === "FAILED")
  return {
    next: new ApplicationDeployment({
      ...current,
      name,
      ...(activate ? { is_active: true, status: "PENDING" as const } : {})
    }),
    activate
  }
}

/**
 * Interactions are recorded under a spec id kept as given (they predate stored specs); an id that
 * is a stored spec of an account not the caller's is that account's: 404, as any entity of theirs.
 */
const notAnotherAccountsSpec = (specId: string) =>
  Effect.gen(function*() {
    const accounts = yield* callerAccounts
    const sql = yield* SqlClient.SqlClient
    const owners = yield* Effect.orDie(sql<{ account_id: string }>`SELECT account_id FROM application_specs WHERE id = ${specId}`)
    if (owners.length > 0 && !accounts.includes(owners[0]!.account_id)) {
      return yield* Effect.fail(new NotFound({ detail: `Application spec ${specId} not found` }))
    }
  })

export const ApplicationsHttp = (group: ImplementGroup) =>
  group("applications", (handlers) =>
  Effect.gen(function*() {
    const deployments = yield* DeploymentsRepo
    const interactions = yield* InteractionsRepo
    const metrics = yield* ApplicationMetrics
    const lifecycles = yield* Lifecycles
    const processing = yield* ProcessHandlers
    const dashboards = yield* DashboardHandlers
    const variants = yield* VariantsRepo
    return handlers
      .handle("process", processing.process)
      .handle("processGraph", processing.processGraph)
      .handle("schemas", processing.schemas)
      .handle("createDeployment", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          // the variant it serves is one of the deployment's account (404 otherwise, as any entity not its own)
          yield* variants.get(payload.application_variant_id, [account_id])
          const [id, created_at] = yield* freshIdentity
          const created = yield* deployments.insert(
            new ApplicationDeployment({
              id,
              name: payload.name,
              endpoint: payload.endpoint,
              application_variant_id: payload.application_variant_id,
              status: "PENDING",
              is_active: payload.is_active,
              account_id,
              ...(yield* createdBy),
              created_at
            })
          )
          // PENDING → READY (or STOPPED when inactive) on the engine (applications/workflow.ts)
          yield* lifecycles.start({ workflow: "ApplicationDeployment", id, account_id })
          return created
        }))
      .handle("getDeployment", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(deployments.getText(path.application_deployment_id, accounts), storedResponse)))
      .handle("updateDeployment", ({ path, payload }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const { deployment, run } = yield* deployments.modify(
            path.application_deployment_id,
            accounts,
            (current) => updated(current, payload)
          )
          // activated again: PENDING → READY on the engine, as a run of its own
          if (Option.isSome(run)) {
            yield* lifecycles.start({ workflow: "ApplicationDeployment", id: deployment.id, account_id: deployment.account_id, run: run.value })
          }
          return deployment
        }))
      .handle("listDeployments", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          deployments.page({ accountIds, ...pageOf(urlParams) })))
      .handle("validate", ({ payload }) => {
        const problems = validateGraph(payload.nodes, payload.edges)
        return Effect.zipRight(
          checkSelectedAccount,
          problems.length === 0
            ? Effect.succeed(new ApplicationValid({ valid: true }))
            : Effect.fail(
              new ApplicationGraphInvalid({
                errors: problems.map((problem) => new ApplicationGraphError(problem)),
                service_error_code: "APPLICATION_BUILDER_VALIDATION_ERROR"
              })
            )
        )
      })
      .handle("recordInteraction", ({ path, payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          yield* notAnotherAccountsSpec(path.application_spec_id)
          const [id, created_at] = yield* freshIdentity
          return yield* interactions.insert(
            new ApplicationInteraction({
              id,
              application_spec_id: path.application_spec_id,
              application_variant_id: payload.application_variant_id,
              // normalised to UTC with a `Z`, like every timestamp the service answers
              start_timestamp: new Date(Date.parse(payload.start_timestamp)).toISOString(),
              duration_ms: payload.duration_ms,
              input_tokens: payload.input_tokens,
              output_tokens: payload.output_tokens,
              error: payload.error ?? null,
              user_id: payload.user_id ?? null,
              node_latencies: payload.node_latencies ?? [],
              feedback: payload.feedback ?? null,
              account_id,
              ...(yield* createdBy),
              created_at
            }, true)
          )
        }))
      .handle("getInteraction", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) =>
          interactions.get(path.application_spec_id, path.interaction_id, accounts)))
      .handle("listInteractions", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          yield* notAnotherAccountsSpec(path.application_spec_id)
          return yield* interactions.page(path.application_spec_id, { accountIds, ...pageOf(urlParams) })
        }))
      .handle("timeseriesMetric", (request) => dashboards.timeseriesMetric(request, { checkWindow, notAnotherAccountsSpec }))
      .handle("dashboard", (request) => dashboards.dashboard(request, { checkWindow, notAnotherAccountsSpec }))
      .handle("scalarMetric", ({ path, urlParams }) =>
        Effect.gen(function*() {
          yield* checkWindow(urlParams)
          const accountIds = yield* accountsForRead(urlParams.account_id)
          yield* notAnotherAccountsSpec(path.application_spec_id)
          return yield* metrics.scalarMetric(path.metric_id, {
            accountIds,
            applicationSpecId: path.application_spec_id,
            fromMs: urlParams.from_ts === undefined ? undefined : Math.ceil(urlParams.from_ts * 1000),
            toMs: urlParams.to_ts === undefined ? undefined : Math.floor(urlParams.to_ts * 1000),
            variants: urlParams.variants ?? [],
            tokenType: urlParams.token_type ?? "total",
            percentile: urlParams.percentile ?? 50,
            nodeId: urlParams.node_id
          })
        }))
  })
).pipe(
  Layer.provide(Layer.mergeAll(DeploymentsRepo.Default, InteractionsRepo.Default, ApplicationMetrics.Default, ProcessLive))
)
