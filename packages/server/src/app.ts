/**
 * The application, composed at the top of the package: every family's handlers (`GroupsLive`: a
 * new family is one line here), the authentication middleware, the request middlewares (http/),
 * OpenAPI at `/openapi.json` and its viewer at `/docs`. Served by `HttpApiBuilder.serve`
 * (`HttpLive`), or by the lean engine of fast/ (`LeanHttpLive`, the standalone server).
 */
import { HttpApiBuilder } from "@effect/platform"
import type * as Net from "node:net"
import { createServer } from "node:http"
import { PlatformApi } from "@platform-kit/api"
import { Effect, Layer } from "effect"
import { Accounts } from "./auth/Accounts.js"
import { AuthenticationLive } from "./auth/Authentication.js"
import { MaxBodyBytes } from "./config.js"
import { accessLogFormat, withStartLine } from "./operations.js"
import { HealthLive } from "./health/http.js"
import { ModelGroupsLive } from "./model-groups/http.js"
import { ApplicationsLive } from "./applications/http.js"
import { KnowledgeBasesLive } from "./knowledge-bases/http.js"
import { KnowledgeBaseUploadsLive } from "./knowledge-bases/uploadsHttp.js"
import { EvaluationDatasetsLive } from "./evaluation-datasets/http.js"
import { QuestionsLive } from "./questions/http.js"
import { EvaluationConfigsLive } from "./evaluation-configs/http.js"
import { FineTuningJobsLive } from "./fine-tuning-jobs/http.js"
import { DeploymentPackagesLive } from "./deployment-packages/http.js"
import { ModelsLive } from "./models/http.js"
import { InferenceLive } from "./models/inference/http.js"
import { EvaluationsLive } from "./evaluations/http.js"
import { EvaluationDashboardsLive } from "./evaluation-dashboards/http.js"
import { SpanAssessmentsLive } from "./span-assessments/http.js"
import { AgentRuntimeLive } from "./agent-runtime/http.js"
import { CredentialsLive } from "./credentials/http.js"
import { EventsLive } from "./events/http.js"
import { AgentsLive } from "./agent-tasks/agentsHttp.js"
import { TasksLive } from "./agent-tasks/tasksHttp.js"
import { MessagesLive } from "./agent-tasks/messagesHttp.js"
import { StatesLive } from "./agent-tasks/statesHttp.js"
import { AdminAuthenticationLive, AdminLive } from "./admin/http.js"
import { Simulation } from "./engine/Simulation.js"
import { IdempotencyStore } from "./idempotency/IdempotencyStore.js"
import { Lifecycles } from "./engine/Lifecycles.js"
import { ModelProviders } from "./models/inference/ModelProviders.js"
import { ModelUsageRepo } from "./models/ModelUsageRepo.js"
import { ObjectStore } from "./platform/ObjectStore.js"
import { DocsLive } from "./http/docs.js"
import { layerNodeServer } from "./fast/engine.js"
import { Implementations } from "./fast/implementations.js"
import { makeIdempotency } from "./http/idempotency.js"
import { maxBodySizeLayer, requestContext } from "./http/middleware.js"
import { routeFaults } from "./http/routeFaults.js"
import { makeRequestValidation } from "./http/validation.js"

/**
 * The background work of every family: the workflow engine and the families' workflows
 * (workflows.ts), loaded once the application is up (engine/Lifecycles.ts), with the model
 * providers and the usage recorder the inference endpoints use (the same layers: one instance each). Needs `SqlClient`, `Ids`.
 */
export const LifecyclesLive = Lifecycles.lazy(() => import("./workflows.js")).pipe(
  Layer.provide([ModelProviders.Default, ModelUsageRepo.Default, ObjectStore.Default])
)

/**
 * Every group of the API, implemented, and what they built in `Implementations` (for the lean
 * engine, engine.ts). Needs `SqlClient`.
 */
export const GroupsLive = Layer.mergeAll(
  HealthLive,
  ModelGroupsLive,
  ApplicationsLive,
  KnowledgeBasesLive,
  KnowledgeBaseUploadsLive,
  EvaluationDatasetsLive,
  QuestionsLive,
  EvaluationConfigsLive,
  FineTuningJobsLive,
  DeploymentPackagesLive,
  ModelsLive,
  InferenceLive,
  EvaluationsLive,
  EvaluationDashboardsLive,
  SpanAssessmentsLive,
  AgentRuntimeLive,
  CredentialsLive,
  EventsLive,
  AgentsLive,
  TasksLive,
  MessagesLive,
  StatesLive,
  AdminLive
).pipe(Layer.provideMerge(Implementations.layer), Layer.provide(LifecyclesLive))

/** The implemented API: groups, authentication, validation mapping. Needs `SqlClient` and `Ids`. */
export const ApiLive = HttpApiBuilder.api(PlatformApi).pipe(
  Layer.provide(GroupsLive),
  Layer.provide(AuthenticationLive),
  Layer.provide(AdminAuthenticationLive),
  Layer.provideMerge(Accounts.Default),
  // one for the control plane, the engine and the request middlewares: what the one changes, the
  // others run by
  Layer.provideMerge(Simulation.layer)
)

/**
 * Around the router: request ids, size limit, 404/500 bodies (outer); route faults
 * (docs/control-plane.md); `Idempotency-Key` for POSTs (docs/idempotency.md); 422 mapping (inner).
 */
const RequestMiddlewareLive = HttpApiBuilder.middleware(
  Effect.gen(function*() {
    const maxBodyBytes = yield* MaxBodyBytes
    const validation = makeRequestValidation(PlatformApi)
    const idempotency = yield* makeIdempotency
    const encodeErrors = yield* HttpApiBuilder.buildMiddleware(PlatformApi)
    const context = requestContext({ maxBodyBytes, encodeErrors })
    const faults = routeFaults((yield* Simulation).routeFaults)
    return (app) => context(faults(idempotency(validation(app))))
  })
).pipe(
  Layer.provide(IdempotencyStore.Default),
  Layer.merge(Layer.unwrapEffect(Effect.map(MaxBodyBytes, maxBodySizeLayer)))
)

/** The implemented API with its request middlewares and docs, ready to serve. Needs `SqlClient`, `Ids`. */
export const AppLive = Layer.mergeAll(DocsLive, RequestMiddlewareLive).pipe(Layer.provideMerge(ApiLive))

/**
 * The HTTP application served on whatever `HttpServer` is provided (Node on a port, or the test
 * server). Needs `SqlClient` and `Ids`.
 */
export const HttpLive = HttpApiBuilder.serve().pipe(
  Layer.provide(AppLive),
  withStartLine
)

/**
 * The same application served on Node at `listen` through the lean engine (engine.ts): what the
 * standalone server runs. Provides the `HttpServer` it listens on. Needs `SqlClient` and `Ids`.
 */
export const LeanHttpLive = (listen: Net.ListenOptions) =>
  HttpApiBuilder.serve().pipe(
    withStartLine,
    Layer.provideMerge(
      Layer.unwrapEffect(Effect.map(
        Effect.all([MaxBodyBytes, accessLogFormat]),
        ([maxBodyBytes, accessLog]) => layerNodeServer(createServer, listen, { maxBodyBytes, accessLog })
      ))
    ),
    Layer.provide(AppLive)
  )
