/**
 * The workflow engine with every family's workflows (docs/engine.md): what `Lifecycles.lazy`
 * imports in the background (engine/Lifecycles.ts). Only this module, and the families'
 * `workflow.ts` files it lists, import `@effect/cluster` and `@effect/workflow`.
 *
 * One runner per process (`SingleRunner`) whose storage is the application's own database: the
 * engine's tables (`cluster_messages`, `cluster_replies`, `cluster_locks`, `cluster_runners`,
 * `cluster_migrations`) are created by the library in the same database, next to the kit's.
 */
import { ClusterWorkflowEngine, RunnerAddress, SingleRunner } from "@effect/cluster"
import { DurableDeferred, type WorkflowEngine } from "@effect/workflow"
import type { SqlClient } from "@effect/sql"
import { Duration, Effect, Exit, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import * as Os from "node:os"
import { AgentRuntimeWorkflows } from "./agent-runtime/workflow.js"
import { ApplicationDeploymentWorkflows } from "./applications/workflow.js"
import { BuildsWorkflows } from "./builds/workflow.js"
import { VariantReportWorkflows } from "./applications/reports/workflow.js"
import { PackageInstallWorkflows } from "./deployment-packages/workflow.js"
import { type EngineModule, type FamilyWorkflows, type LifecycleStart } from "./engine/Lifecycles.js"
import { ParkedSteps } from "./engine/ParkedSteps.js"
import { advanceDeferred } from "./engine/simulatedStep.js"
import type { Simulation } from "./engine/Simulation.js"
import { WidgetComputationWorkflows } from "./evaluation-dashboards/workflow.js"
import { EvaluationWorkflows } from "./evaluations/workflow.js"
import { EvaluationsV4Workflows } from "./evaluations-v4/build.js"
import { GenerationJobWorkflows } from "./evaluation-datasets/generation/workflow.js"
import { FineTuningWorkflows } from "./fine-tuning-jobs/workflow.js"
import { KnowledgeBaseWorkflows } from "./knowledge-bases/workflow.js"
import { RunScheduleWorkflows } from "./agent-tasks/schedules/firing.js"
import { WebhookDeliveryWorkflows } from "./agent-tasks/webhooks/workflow.js"
import type { SecretBox } from "./credentials/SecretBox.js"
import type { ObjectStore } from "./platform/ObjectStore.js"
import type { ModelProviders } from "./models/inference/ModelProviders.js"
import type { ModelUsageRepo } from "./models/usage/ModelUsageRepo.js"
import { ModelDeploymentWorkflows } from "./models/workflow.js"
import { InferenceModelWorkflows } from "./models/v5/workflow.js"
import type { Ids } from "./platform/Ids.js"

/**
 * What the workflows take from the application (app.ts gives them, so that requests and
 * background work share one of each): its database, ids, simulation, the model providers (one
 * upstream client and key per process), the usage recorder, the object store and the secret box
 * (its key, ephemeral on an in-memory database, must be the requests').
 */
type Services = SqlClient.SqlClient | Ids | Simulation | ModelProviders | ModelUsageRepo | ObjectStore | SecretBox

/** What a family's workflows may need: the application's services, the parked steps and the engine. */
type Needs = Services | ParkedSteps | WorkflowEngine.WorkflowEngine

/** Every family's workflows: a family with background work is one line here. */
const families: ReadonlyArray<FamilyWorkflows<Needs>> = [
  PackageInstallWorkflows,
  ApplicationDeploymentWorkflows,
  VariantReportWorkflows,
  FineTuningWorkflows,
  AgentRuntimeWorkflows,
  BuildsWorkflows,
  ModelDeploymentWorkflows,
  InferenceModelWorkflows,
  KnowledgeBaseWorkflows,
  EvaluationWorkflows,
  EvaluationsV4Workflows,
  GenerationJobWorkflows,
  WidgetComputationWorkflows,
  RunScheduleWorkflows,
  WebhookDeliveryWorkflows
]

const WorkflowsLive = Layer.mergeAll(...families.map((family) => family.layer) as [FamilyWorkflows<Needs>["layer"]]).pipe(
  Layer.provide(ParkedSteps.Default)
)

/** Every workflow, by the name handlers start it with. */
const workflows: FamilyWorkflows["workflows"] = Object.assign({}, ...families.map((family) => family.workflows))

/**
 * The runner's address: one of its own for each process (and each engine, should a process run
 * two), on either database: the library keys its runner registry, and so the machine id its
 * message ids are made from, by address. It is a name only: no runner calls another, nothing
 * listens on it. The library's default would be `HOST:PORT` from the environment, the same for
 * two engines of one process, or processes on one port in separate containers.
 */
const runnerAddress = Effect.sync(() => RunnerAddress.make(`${Os.hostname()}-${process.pid}-${Crypto.randomUUID()}`, 1))

/**
 * The engine: one runner per process, its messages in the application's database. Needs
 * `SqlClient`. Its storage is read every second for messages that became due (a durable timer's,
 * another process's start): the library's default of 10 s would make a simulated step of 3 s take
 * up to 13. Shard locks are refreshed every 5 s and expire after 15 s (the library's 10 s and 35
 * s): a process restarted after kill -9 waited half a minute for the shards of the one it replaces
 * before its lifecycles went on; now about 15 s. Not shorter: a refresh is given the refresh
 * interval to finish (then it is interrupted, and the shards are held unhealthy), and with 2 s a
 * loaded PostgreSQL server missed it (docs/engine.md, "Several processes"). At a close, a workflow
 * busy in its entity (a step running, a short sleep kept in memory) has 2 s to end (the library's
 * 15 s held every test server's close, and a SIGTERM, that long), then is interrupted: it resumes
 * from its last completed step at the next start, as after kill -9. Shards are locked by rows of
 * the engine's own table on PostgreSQL too, as on SQLite: the library's advisory locks there are
 * numbered by shard alone, so they are the whole database's, and the engine of a deployment on
 * another schema of the same database would hold every shard of this one.
 */
const EngineLive = Layer.unwrapEffect(Effect.map(runnerAddress, (address) =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(SingleRunner.layer({
      runnerStorage: "sql",
      shardingConfig: {
        runnerAddress: Option.some(address),
        entityMessagePollInterval: Duration.seconds(1),
        shardLockRefreshInterval: Duration.seconds(5),
        shardLockExpiration: Duration.seconds(15),
        entityTerminationTimeout: Duration.seconds(2),
        shardLockDisableAdvisory: true
      }
    }))
  )))

export const layer: EngineModule<Services>["layer"] = WorkflowsLive.pipe(Layer.provideMerge(EngineLive))

export const start = (request: LifecycleStart) => {
  const workflow = workflows[request.workflow]
  if (workflow === undefined) return Effect.dieMessage(`no workflow is named ${request.workflow}`)
  return workflow.execute(
    { id: request.id, account_id: request.account_id, ...(request.run === undefined ? {} : { run: request.run }) },
    { discard: true }
  ).pipe(Effect.asVoid)
}

/** Any parked step's deferred: the token names the workflow, its execution and the step's deferred. */
const parkedStep = advanceDeferred("step")

export const advance = (token: string) =>
  DurableDeferred.done(parkedStep, { token: DurableDeferred.Token.make(token), exit: Exit.void })
