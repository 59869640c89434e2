/**
 * Every migration: each family's (its `migration.ts` exports them by id) and the shared floors'.
 * The server runs them on start; tests run them on each fresh database. A family's tables are one
 * line here; a new migration takes the next free number and is never edited once it has shipped.
 * They run in the order of their numbers, whoever lists them.
 */
import { Migrator } from "@effect/sql"
import type { Effect } from "effect"
import { agentRuntimeMigrations } from "./agent-runtime/migration.js"
import { agentTasksMigrations } from "./agent-tasks/migration.js"
import { trackerMigrations } from "./agent-tasks/trackerMigration.js"
import { checkpointMigrations } from "./agent-tasks/checkpoints/migration.js"
import { agentDeploymentsMigrations } from "./agent-tasks/deployments/migration.js"
import { agentRunSchedulesMigrations } from "./agent-tasks/schedules/migration.js"
import { agentWebhooksMigrations } from "./agent-tasks/webhooks/migration.js"
import { applicationsMigrations } from "./applications/migration.js"
import { applicationFilesMigrations } from "./applications/files/migration.js"
import { applicationReportsMigrations } from "./applications/test-case-outputs/migration.js"
import { authMigrations } from "./auth/migration.js"
import { credentialsMigrations } from "./credentials/migration.js"
import { deploymentPackagesMigrations } from "./deployment-packages/migration.js"
import { engineMigrations } from "./engine/migration.js"
import { evaluationConfigsMigrations } from "./evaluation-configs/migration.js"
import { questionSetsMigrations } from "./question-sets/migration.js"
import { evaluationsV4Migrations } from "./evaluations-v4/migration.js"
import { evaluationJobsMigrations } from "./evaluations-v4/workflow.js"
import { evaluationDashboardsMigrations } from "./evaluation-dashboards/migration.js"
import { evaluationDatasetsMigrations } from "./evaluation-datasets/migration.js"
import { generationJobsMigrations } from "./evaluation-datasets/generation/migration.js"
import { evaluationsMigrations } from "./evaluations/migration.js"
import { eventsMigrations } from "./events/migration.js"
import { fineTuningJobsMigrations } from "./fine-tuning-jobs/migration.js"
import { filesMigrations } from "./files/migration.js"
import { buildsMigrations } from "./builds/migration.js"
import { trainingDatasetsMigrations } from "./training-datasets/migration.js"
import { idempotencyMigrations } from "./idempotency/migration.js"
import { knowledgeBasesMigrations } from "./knowledge-bases/migration.js"
import { modelGroupsMigrations } from "./model-groups/migration.js"
import { modelsMigrations } from "./models/migration.js"
import { inferenceModelsMigrations } from "./models/v5/migration.js"
import { questionsMigrations } from "./questions/migration.js"
import { spanAssessmentsMigrations } from "./span-assessments/migration.js"
import { spansMigrations } from "./spans/migration.js"
import { datasetsMigrations } from "./datasets/migration.js"
import { documentCountsMigration } from "./sql/documentCounts.js"
import { documentFormsMigration } from "./sql/documentForms.js"

type Migrations = Readonly<Record<string, Effect.Effect<unknown, unknown, any>>>

const listed: ReadonlyArray<Migrations> = [
  authMigrations,
  idempotencyMigrations,
  engineMigrations,
  { "0018_document_counts": documentCountsMigration, "0019_document_forms": documentFormsMigration },
  modelGroupsMigrations,
  applicationsMigrations,
  applicationFilesMigrations,
  applicationReportsMigrations,
  knowledgeBasesMigrations,
  evaluationDatasetsMigrations,
  generationJobsMigrations,
  questionsMigrations,
  evaluationConfigsMigrations,
  questionSetsMigrations,
  evaluationsV4Migrations,
  evaluationJobsMigrations,
  fineTuningJobsMigrations,
  trainingDatasetsMigrations,
  deploymentPackagesMigrations,
  modelsMigrations,
  inferenceModelsMigrations,
  filesMigrations,
  buildsMigrations,
  evaluationsMigrations,
  evaluationDashboardsMigrations,
  spanAssessmentsMigrations,
  spansMigrations,
  datasetsMigrations,
  agentRuntimeMigrations,
  credentialsMigrations,
  eventsMigrations,
  agentTasksMigrations,
  trackerMigrations,
  checkpointMigrations,
  agentDeploymentsMigrations,
  agentWebhooksMigrations,
  agentRunSchedulesMigrations
]

/** The lists as one record, refusing (at import) a number two migrations share. */
const byId = (lists: ReadonlyArray<Migrations>): Migrations => {
  const all: Record<string, Migrations[string]> = {}
  const numbers = new Map<number, string>()
  for (const list of lists) {
    for (const [id, migration] of Object.entries(list)) {
      const number = Number(id.split("_")[0])
      const taken = numbers.get(number)
      if (taken !== undefined) throw new Error(`migrations ${taken} and ${id} have the same number`)
      numbers.set(number, id)
      all[id] = migration
    }
  }
  return all
}

export const migrations = Migrator.fromRecord(byId(listed))
