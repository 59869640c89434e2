/**
 * The application, composed at the top of the package: every family's handlers (`groups`: a new
 * family is one line there), the authentication middleware, the request middlewares (http/),
 * OpenAPI at `/openapi.json` and its viewer at `/docs`. Served by `HttpApiBuilder.serve`
 * (`HttpLive`), or by the standalone server's lean server (fast/server.ts, `LeanHttpLive`), which
 * composes the same application with `appLayer`.
 */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect, Layer } from "effect"
import { Accounts } from "./auth/Accounts.js"
import { AuthenticationLive } from "./auth/Authentication.js"
import { FileMaxBytes, MaxBodyBytes } from "./config.js"
import { BetaFilesHttp, FilesHttp } from "./files/http.js"
import { uploadRoutes } from "./files/upload.js"
import { BuildsHttp } from "./builds/http.js"
import { buildUploadRoutes } from "./builds/form.js"
import { withStartLine } from "./operations.js"
import { HealthHttp } from "./health/http.js"
import { ModelGroupsHttp } from "./model-groups/http.js"
import { UsersHttp } from "./users/http.js"
import { ApplicationsHttp } from "./applications/http.js"
import { ApplicationSpecsHttp, ApplicationVariantsHttp, ThemesHttp } from "./applications/specs/http.js"
import { ApplicationThreadsHttp } from "./applications/threads/http.js"
import { ApplicationFilesHttp } from "./applications/files/http.js"
import { ApplicationVariantReportsHttp } from "./applications/reports/http.js"
import { ApplicationTestCaseOutputsHttp } from "./applications/test-case-outputs/http.js"
import { KnowledgeBasesHttp } from "./knowledge-bases/http.js"
import { KnowledgeBaseUploadsHttp } from "./knowledge-bases/uploads/http.js"
import { EvaluationDatasetsHttp } from "./evaluation-datasets/http.js"
import { GenerationJobsHttp } from "./evaluation-datasets/generation/http.js"
import { QuestionsHttp } from "./questions/http.js"
import { QuestionsV5Http } from "./questions/v5.js"
import { EvaluationConfigsHttp } from "./evaluation-configs/http.js"
import { QuestionSetsHttp } from "./question-sets/http.js"
import { StudioProjectsHttp } from "./studio-projects/http.js"
import { FineTuningJobsHttp } from "./fine-tuning-jobs/http.js"
import { TrainingDatasetsHttp } from "./training-datasets/http.js"
import { DeploymentPackagesHttp } from "./deployment-packages/http.js"
import { ModelsHttp } from "./models/http.js"
import { ModelsV5Http } from "./models/v5/http.js"
import { InferenceHttp } from "./models/inference/http.js"
import { BetaInferenceHttp, OpenAiInferenceHttp } from "./models/openai/http.js"
import { ModelTemplatesHttp } from "./models/templates/http.js"
import { EvaluationsHttp } from "./evaluations/http.js"
import { EvaluationsV4Http } from "./evaluations-v4/http.js"
import { EvaluationDashboardsHttp } from "./evaluation-dashboards/http.js"
import { SpanAssessmentsHttp } from "./span-assessments/http.js"
import { SpansHttp } from "./spans/http.js"
import { OtlpHttp } from "./otlp/http.js"
import { DatasetsHttp } from "./datasets/http.js"
import { AgentRuntimeHttp } from "./agent-runtime/http.js"
import { CredentialsHttp } from "./credentials/http.js"
import { EventsHttp } from "./events/http.js"
import { AgentsHttp } from "./agent-tasks/agents/http.js"
import { TasksHttp } from "./agent-tasks/tasks/http.js"
import { MessagesHttp } from "./agent-tasks/messages/http.js"
import { StatesHttp } from "./agent-tasks/states/http.js"
import { TrackerHttp } from "./agent-tasks/tracker/http.js"
import { AgentDeploymentsHttp } from "./agent-tasks/deployments/http.js"
import { DeploymentHistoryHttp } from "./agent-tasks/deployment-history/http.js"
import { AgentRunSchedulesHttp } from "./agent-tasks/schedules/http.js"
import { CheckpointsHttp } from "./agent-tasks/checkpoints/http.js"
import { AgentSpansHttp } from "./agent-tasks/spans/http.js"
import { AgentWebhookForwardHttp, AgentWebhooksHttp } from "./agent-tasks/webhooks/http.js"
import { SecretBox } from "./credentials/SecretBox.js"
import { AdminAuthenticationLive, AdminHttp } from "./admin/http.js"
import { ChunksHttp } from "./chunks/http.js"
import { AgentsExecuteHttp } from "./agents-execute/http.js"
import { Simulation } from "./engine/Simulation.js"
import { IdempotencyStore } from "./idempotency/IdempotencyStore.js"
import { Lifecycles } from "./engine/Lifecycles.js"
import { ModelProviders } from "./models/inference/ModelProviders.js"
import { ModelUsageRepo } from "./models/usage/ModelUsageRepo.js"
import { ObjectStore } from "./platform/ObjectStore.js"
import { CorsLive } from "./http/cors.js"
import { DocsLive } from "./http/docs.js"
import { builderGroup, type ImplementGroup } from "./http/groups.js"
import { makeIdempotency } from "./http/idempotency.js"
import { maxBodySizeLayer, requestContext } from "./http/middleware.js"
import { routeFaults } from "./http/routeFaults.js"
import { makeOpenAiRoutes, makeRequestValidation } from "./http/validation.js"

/**
 * The background work of every family: the workflow engine and the families' workflows
 * (workflows.ts), loaded once the application is up (engine/Lifecycles.ts), with the model
 * providers and the usage recorder the inference endpoints use (the same layers: one instance each). Needs `SqlClient`, `Ids`.
 */
export const LifecyclesLive = Lifecycles.lazy(() => import("./workflows.js")).pipe(
  Layer.provide([ModelProviders.Default, ModelUsageRepo.Default, ObjectStore.Default, SecretBox.Live])
)

/** Every group of the API, each implemented by `group` (http/groups.ts). Needs `SqlClient`. */
const groups = (group: ImplementGroup) =>
  Layer.mergeAll(
    HealthHttp(group),
    ModelGroupsHttp(group),
    UsersHttp(group),
    ApplicationsHttp(group),
    ApplicationSpecsHttp(group),
    ApplicationVariantsHttp(group),
    ThemesHttp(group),
    ApplicationThreadsHttp(group),
    ApplicationFilesHttp(group),
    ApplicationTestCaseOutputsHttp(group),
    ApplicationVariantReportsHttp(group),
    KnowledgeBasesHttp(group),
    KnowledgeBaseUploadsHttp(group),
    EvaluationDatasetsHttp(group),
    GenerationJobsHttp(group),
    QuestionsHttp(group),
    QuestionsV5Http(group),
    EvaluationConfigsHttp(group),
    QuestionSetsHttp(group),
    StudioProjectsHttp(group),
    FineTuningJobsHttp(group),
    TrainingDatasetsHttp(group),
    DeploymentPackagesHttp(group),
    ModelsHttp(group),
    ModelsV5Http(group),
    FilesHttp(group),
    BetaFilesHttp(group),
    BuildsHttp(group),
    InferenceHttp(group),
    OpenAiInferenceHttp(group),
    BetaInferenceHttp(group),
    ModelTemplatesHttp(group),
    EvaluationsHttp(group),
    EvaluationsV4Http(group),
    EvaluationDashboardsHttp(group),
    SpanAssessmentsHttp(group),
    SpansHttp(group),
    OtlpHttp(group),
    DatasetsHttp(group),
    AgentRuntimeHttp(group),
    CredentialsHttp(group),
    EventsHttp(group),
    AgentsHttp(group),
    TasksHttp(group),
    MessagesHttp(group),
    StatesHttp(group),
    TrackerHttp(group),
    AgentDeploymentsHttp(group),
    DeploymentHistoryHttp(group),
    AgentRunSchedulesHttp(group),
    CheckpointsHttp(group),
    AgentSpansHttp(group),
    AgentWebhooksHttp(group),
    AgentWebhookForwardHttp(group),
    AdminHttp(group),
    ChunksHttp(group),
    AgentsExecuteHttp(group)
  ).pipe(Layer.provide(LifecyclesLive))

/** The implemented API: groups, authentication, validation mapping. Needs `SqlClient` and `Ids`. */
const apiLayer = (group: ImplementGroup) =>
  HttpApiBuilder.api(PlatformApi).pipe(
    Layer.provide(groups(group)),
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
    const encodeErrors = yield* HttpApiBuilder.buildMiddleware(PlatformApi)
    // the file uploads and the build contexts stream their bodies and have the files' limit
    // (files/upload.ts, builds/form.ts)
    const streamedBodies = [...uploadRoutes(yield* FileMaxBytes), ...buildUploadRoutes(yield* FileMaxBytes)]
    const idempotency = yield* makeIdempotency(streamedBodies)
    const context = requestContext({ maxBodyBytes, streamedBodies, encodeErrors, openAiRoute: makeOpenAiRoutes(PlatformApi) })
    const faults = routeFaults((yield* Simulation).routeFaults)
    return (app) => context(faults(idempotency(validation(app))))
  })
).pipe(
  Layer.provide(IdempotencyStore.Default),
  Layer.merge(Layer.unwrapEffect(Effect.map(MaxBodyBytes, maxBodySizeLayer)))
)

/**
 * The API with its request middlewares, CORS when configured (http/cors.ts) and docs, its groups
 * implemented by `group`, ready to serve. Needs `SqlClient`, `Ids`.
 */
export const appLayer = (group: ImplementGroup) =>
  Layer.mergeAll(DocsLive, RequestMiddlewareLive, CorsLive).pipe(Layer.provideMerge(apiLayer(group)))

/** The implemented API with its request middlewares and docs, ready to serve. Needs `SqlClient`, `Ids`. */
export const AppLive = appLayer(builderGroup)

/**
 * The HTTP application served on whatever `HttpServer` is provided (Node on a port, or the test
 * server). Needs `SqlClient` and `Ids`.
 */
export const HttpLive = HttpApiBuilder.serve().pipe(
  Layer.provide(AppLive),
  withStartLine
)
