/**
 * Every migration, in order. The server runs them on start; tests run them on each in-memory
 * database. Add a family's tables as a new entry; never edit one that has shipped.
 */
import { Migrator } from "@effect/sql"
import auth from "./auth/migration.js"
import modelGroups from "./model-groups/migration.js"
import applications from "./applications/migration.js"
import knowledgeBases from "./knowledge-bases/migration.js"
import evaluationDatasets from "./evaluation-datasets/migration.js"
import questions from "./questions/migration.js"
import evaluationConfigs from "./evaluation-configs/migration.js"
import fineTuningJobs from "./fine-tuning-jobs/migration.js"
import deploymentPackages from "./deployment-packages/migration.js"
import models from "./models/migration.js"
import evaluations from "./evaluations/migration.js"
import evaluationDashboards from "./evaluation-dashboards/migration.js"
import spanAssessments from "./span-assessments/migration.js"
import agentRuntime from "./agent-runtime/migration.js"
import credentials from "./credentials/migration.js"
import events from "./events/migration.js"
import idempotencyKeys from "./idempotency/migration.js"
import evaluationStatuses from "./evaluations/statusMigration.js"
import applicationDeploymentStatuses from "./applications/statusMigration.js"
import fineTuningJobEvents from "./fine-tuning-jobs/eventsMigration.js"
import agentRuntimeStatuses from "./agent-runtime/statusMigration.js"
import uploadScheduleFirings from "./knowledge-bases/schedulesMigration.js"
import parkedSteps from "./engine/migration.js"
import uploadScheduleFailures from "./knowledge-bases/failuresMigration.js"
import modelInstances from "./models/instancesMigration.js"
import modelServerBackends from "./models/backendsMigration.js"
import modelUsage from "./models/usageMigration.js"
import sharedControls from "./engine/controlsMigration.js"
import evaluationItems from "./evaluations/itemsMigration.js"
import widgetComputations from "./evaluation-dashboards/computationsMigration.js"
import dashboardIndexes from "./evaluation-dashboards/dashboardIndexesMigration.js"
import knowledgeBaseIngestion from "./knowledge-bases/ingestionMigration.js"
import agentTaskSendLease from "./agent-tasks/leaseMigration.js"
import knowledgeBaseFullText from "./knowledge-bases/fullTextMigration.js"
import agentTasks from "./agent-tasks/migration.js"
import { documentCountsMigration } from "./sql/documentCounts.js"
import { documentFormsMigration } from "./sql/documentForms.js"

export const migrations = Migrator.fromRecord({
  "0001_auth": auth,
  "0002_model_groups": modelGroups,
  "0003_applications": applications,
  "0004_knowledge_bases": knowledgeBases,
  "0005_evaluation_datasets": evaluationDatasets,
  "0006_questions": questions,
  "0007_evaluation_configs": evaluationConfigs,
  "0008_fine_tuning_jobs": fineTuningJobs,
  "0009_deployment_packages": deploymentPackages,
  "0010_models": models,
  "0011_evaluations": evaluations,
  "0012_evaluation_dashboards": evaluationDashboards,
  "0013_span_assessments": spanAssessments,
  "0014_agent_runtime": agentRuntime,
  "0015_credentials": credentials,
  "0016_events": events,
  "0017_idempotency_keys": idempotencyKeys,
  "0018_document_counts": documentCountsMigration,
  "0019_document_forms": documentFormsMigration,
  "0020_evaluation_statuses": evaluationStatuses,
  "0021_application_deployment_statuses": applicationDeploymentStatuses,
  "0022_fine_tuning_job_events": fineTuningJobEvents,
  "0023_agent_runtime_statuses": agentRuntimeStatuses,
  "0024_upload_schedule_firings": uploadScheduleFirings,
  "0025_parked_steps": parkedSteps,
  "0026_upload_schedule_failures": uploadScheduleFailures,
  "0027_model_instances": modelInstances,
  "0028_model_server_backends": modelServerBackends,
  "0029_model_usage": modelUsage,
  "0030_shared_controls": sharedControls,
  "0031_evaluation_items": evaluationItems,
  "0032_widget_computations": widgetComputations,
  "0033_kb_ingestion": knowledgeBaseIngestion,
  "0034_agent_tasks": agentTasks,
  "0035_agent_task_send_lease": agentTaskSendLease,
  "0036_kb_full_text_by_statement": knowledgeBaseFullText,
  "0037_dashboard_widget_indexes": dashboardIndexes
})
