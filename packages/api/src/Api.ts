/**
 * The platform's HttpApi: the single definition the server implements, the client derives from
 * and the OpenAPI document describes.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { Forbidden, InternalServerError, PayloadTooLarge, ValidationError } from "@platform-kit/schema"
import { HealthApi } from "./HealthApi.js"
import { ModelGroupsApi } from "./ModelGroupsApi.js"
import { UsersApi } from "./UsersApi.js"
import { ApplicationsApi } from "./ApplicationsApi.js"
import { ApplicationTestCaseOutputsApi, ApplicationVariantReportsApi } from "./ApplicationReportsApi.js"
import { ApplicationSpecsApi, ApplicationVariantsApi, ThemesApi } from "./ApplicationSpecsApi.js"
import { ApplicationThreadsApi } from "./ApplicationThreadsApi.js"
import { ApplicationFilesApi } from "./ApplicationFilesApi.js"
import { KnowledgeBasesApi } from "./KnowledgeBasesApi.js"
import { KnowledgeBaseUploadsApi } from "./KnowledgeBaseUploadsApi.js"
import { EvaluationDatasetsApi } from "./EvaluationDatasetsApi.js"
import { GenerationJobsApi } from "./GenerationJobsApi.js"
import { QuestionsApi } from "./QuestionsApi.js"
import { QuestionsV5Api } from "./QuestionsV5Api.js"
import { ModelsV5Api } from "./ModelsV5Api.js"
import { BetaFilesApi, FilesApi } from "./FilesApi.js"
import { BuildsApi } from "./BuildsApi.js"
import { EvaluationConfigsApi } from "./EvaluationConfigsApi.js"
import { QuestionSetsApi } from "./QuestionSetsApi.js"
import { StudioProjectsApi } from "./StudioProjectsApi.js"
import { FineTuningJobsApi } from "./FineTuningJobsApi.js"
import { TrainingDatasetsApi } from "./TrainingDatasetsApi.js"
import { DeploymentPackagesApi } from "./DeploymentPackagesApi.js"
import { ModelsApi } from "./ModelsApi.js"
import { ModelTemplatesApi } from "./ModelTemplatesApi.js"
import { InferenceApi } from "./InferenceApi.js"
import { BetaInferenceApi, OpenAiInferenceApi } from "./OpenAiInferenceApi.js"
import { EvaluationsApi } from "./EvaluationsApi.js"
import { EvaluationsV4Api } from "./EvaluationsV4Api.js"
import { EvaluationDashboardsApi } from "./EvaluationDashboardsApi.js"
import { SpanAssessmentsApi } from "./SpanAssessmentsApi.js"
import { SpansApi } from "./SpansApi.js"
import { OtlpApi } from "./OtlpApi.js"
import { DatasetsApi } from "./DatasetsApi.js"
import { AgentRuntimeApi } from "./AgentRuntimeApi.js"
import { CredentialsApi } from "./CredentialsApi.js"
import { EventsApi } from "./EventsApi.js"
import { AgentsApi, CheckpointsApi, MessagesApi, StatesApi, TasksApi, TrackerApi } from "./AgentTasksApi.js"
import { AgentDeploymentsApi, DeploymentHistoryApi } from "./AgentTasksApi.js"
import { AgentRunSchedulesApi } from "./AgentTasksApi.js"
import { AgentSpansApi } from "./AgentSpansApi.js"
import { AgentWebhookForwardApi, AgentWebhooksApi } from "./AgentWebhooksApi.js"
import { AdminApi } from "./AdminApi.js"
import { ChunksApi } from "./ChunksApi.js"
import { AgentsExecuteApi } from "./AgentsExecuteApi.js"
import { documentIdempotencyKey } from "./idempotency.js"
import { dropBuilderDecodeError, dropWireTags, healthWithoutErrors, openAiErrorsOnly } from "./openApiDocument.js"


export class PlatformApi extends HttpApi.make("platform")
  .add(HealthApi)
  .add(ModelGroupsApi)
  .add(UsersApi)
  .add(ApplicationsApi)
  .add(ApplicationSpecsApi)
  .add(ApplicationVariantsApi)
  .add(ApplicationTestCaseOutputsApi)
  .add(ApplicationVariantReportsApi)
  .add(ThemesApi)
  .add(ApplicationThreadsApi)
  .add(ApplicationFilesApi)
  .add(KnowledgeBasesApi)
  .add(KnowledgeBaseUploadsApi)
  .add(EvaluationDatasetsApi)
  .add(GenerationJobsApi)
  .add(QuestionsApi)
  .add(QuestionsV5Api)
  .add(EvaluationConfigsApi)
  .add(QuestionSetsApi)
  .add(StudioProjectsApi)
  .add(FineTuningJobsApi)
  .add(TrainingDatasetsApi)
  .add(DeploymentPackagesApi)
  .add(ModelsApi)
  .add(ModelsV5Api)
  .add(FilesApi)
  .add(BetaFilesApi)
  .add(BuildsApi)
  .add(ModelTemplatesApi)
  .add(InferenceApi)
  .add(OpenAiInferenceApi)
  .add(BetaInferenceApi)
  .add(EvaluationsApi)
  .add(EvaluationsV4Api)
  .add(EvaluationDashboardsApi)
  .add(SpanAssessmentsApi)
  .add(SpansApi)
  .add(OtlpApi)
  .add(DatasetsApi)
  .add(AgentRuntimeApi)
  .add(CredentialsApi)
  .add(EventsApi)
  .add(AgentsApi)
  .add(TasksApi)
  .add(MessagesApi)
  .add(StatesApi)
  .add(TrackerApi)
  .add(CheckpointsApi)
  .add(AgentDeploymentsApi)
  .add(DeploymentHistoryApi)
  .add(AgentRunSchedulesApi)
  .add(AgentSpansApi)
  .add(AgentWebhooksApi)
  .add(AgentWebhookForwardApi)
  .add(AdminApi)
  .add(ChunksApi)
  .add(AgentsExecuteApi)
  .addError(ValidationError)
  .addError(Forbidden)
  .addError(PayloadTooLarge)
  .addError(InternalServerError)
  .annotateContext(
    OpenApi.annotations({
      title: "platform-kit",
      version: "0.1.0",
      description: "AI-platform HTTP JSON API: applications, knowledge bases, evaluations, models, agents.",
      license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
      servers: [{ url: "http://127.0.0.1:8080", description: "The standalone server at its default address (HOST, PORT)" }],
      transform: (spec) => documentIdempotencyKey(healthWithoutErrors(openAiErrorsOnly(dropWireTags(dropBuilderDecodeError(spec)))))
    })
  )
{}
