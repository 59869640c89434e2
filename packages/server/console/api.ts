/**
 * The part of the platform's API the console calls: an `HttpApi` of only the groups its pages use
 * (the same group definitions `PlatformApi` is made of, from `@platform-kit/api`), with the
 * API-wide errors. The kit's client over it (`makePromiseClientOf`) is the Promise client of
 * these groups, so that the bundle carries their Schemas and not every family's
 * (docs/decisions.md "The console"). A page that calls another family adds its group here.
 */
import { HttpApi } from "@effect/platform"
import {
  AdminApi,
  AgentRuntimeApi,
  AgentsApi,
  ApplicationsApi,
  ApplicationSpecsApi,
  ApplicationVariantReportsApi,
  ApplicationVariantsApi,
  BuildsApi,
  DeploymentPackagesApi,
  EvaluationDashboardsApi,
  EvaluationDatasetsApi,
  EvaluationsApi,
  EvaluationsV4Api,
  FineTuningJobsApi,
  GenerationJobsApi,
  KnowledgeBasesApi,
  KnowledgeBaseUploadsApi,
  MessagesApi,
  ModelsApi,
  ModelsV5Api,
  SpansApi,
  TasksApi,
  UsersApi
} from "@platform-kit/api"
import { Forbidden, InternalServerError, PayloadTooLarge, ValidationError } from "@platform-kit/schema"

export class ConsoleApi extends HttpApi.make("console")
  .add(UsersApi)
  .add(ModelsApi)
  .add(KnowledgeBasesApi)
  .add(KnowledgeBaseUploadsApi)
  .add(ApplicationSpecsApi)
  .add(ApplicationVariantsApi)
  .add(ApplicationsApi)
  .add(EvaluationsApi)
  .add(EvaluationsV4Api)
  .add(EvaluationDashboardsApi)
  .add(SpansApi)
  .add(AgentsApi)
  .add(TasksApi)
  .add(MessagesApi)
  .add(AdminApi)
  // the lifecycles page's other families (docs/decisions.md "The console": what each costs)
  .add(FineTuningJobsApi)
  .add(BuildsApi)
  .add(AgentRuntimeApi)
  .add(ModelsV5Api)
  .add(ApplicationVariantReportsApi)
  .add(DeploymentPackagesApi)
  .add(EvaluationDatasetsApi)
  .add(GenerationJobsApi)
  // as PlatformApi: the errors any operation may answer
  .addError(ValidationError)
  .addError(Forbidden)
  .addError(PayloadTooLarge)
  .addError(InternalServerError)
{}
