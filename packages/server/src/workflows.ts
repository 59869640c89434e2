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
import { DurableDeferred } from "@effect/workflow"
import { Duration, Effect, Exit, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import * as Os from "node:os"
import { AgentRuntimeRepo } from "./agent-runtime/AgentRuntimeRepo.js"
import { AgentRuntimeLifecycle, AgentRuntimeLifecycleLive } from "./agent-runtime/workflow.js"
import { ApplicationDeploymentLifecycle, ApplicationDeploymentLifecycleLive } from "./applications/workflow.js"
import { DeploymentsRepo } from "./applications/DeploymentsRepo.js"
import { PackageJobsRepo } from "./deployment-packages/PackageJobsRepo.js"
import { PackageInstall, PackageInstallLive } from "./deployment-packages/workflow.js"
import { FineTuningJobsRepo } from "./fine-tuning-jobs/FineTuningJobsRepo.js"
import { FineTuningLifecycle, FineTuningLifecycleLive } from "./fine-tuning-jobs/workflow.js"
import { EvaluationsRepo } from "./evaluations/EvaluationsRepo.js"
import { ModelDeploymentsRepo } from "./models/ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "./models/ModelInstancesRepo.js"
import { ModelDeploymentLifecycle, ModelDeploymentLifecycleLive } from "./models/workflow.js"
import { EvaluationItemsRepo } from "./evaluations/EvaluationItemsRepo.js"
import { EvaluationRunner } from "./evaluations/run.js"
import { EvaluationRun, EvaluationRunLive } from "./evaluations/workflow.js"
import { DashboardsRepo } from "./evaluation-dashboards/DashboardsRepo.js"
import { WidgetComputations } from "./evaluation-dashboards/computation.js"
import { WidgetComputation, WidgetComputationLive } from "./evaluation-dashboards/workflow.js"
import { ModelResolver } from "./models/inference/ModelResolver.js"
import { ModelServersRepo } from "./models/ModelServersRepo.js"
import { ArtifactsRepo } from "./knowledge-bases/ArtifactsRepo.js"
import { ChunksRepo } from "./knowledge-bases/ChunksRepo.js"
import { DataSourcesRepo } from "./knowledge-bases/DataSourcesRepo.js"
import { KnowledgeBaseEmbedder } from "./knowledge-bases/embedding.js"
import { BuiltinEmbeddings } from "./knowledge-bases/embeddingThread.js"
import { KnowledgeBasesRepo } from "./knowledge-bases/KnowledgeBasesRepo.js"
import { UploadRunner } from "./knowledge-bases/uploadRunner.js"
import { KnowledgeBaseUpload, KnowledgeBaseUploadLive, UploadIngestionLive } from "./knowledge-bases/uploadWorkflow.js"
import { UploadsRepo } from "./knowledge-bases/UploadsRepo.js"
import { UploadSchedulesRepo } from "./knowledge-bases/UploadSchedulesRepo.js"
import { UploadScheduleFiring, UploadScheduleFiringLive } from "./knowledge-bases/workflow.js"
import type { EngineModule, LifecycleStart } from "./engine/Lifecycles.js"
import { ParkedSteps } from "./engine/ParkedSteps.js"
import { advanceDeferred } from "./engine/simulatedStep.js"

/** Every family's workflows. */
const WorkflowsLive = Layer.mergeAll(
  PackageInstallLive.pipe(Layer.provide(PackageJobsRepo.Default)),
  ApplicationDeploymentLifecycleLive.pipe(Layer.provide(DeploymentsRepo.Default)),
  FineTuningLifecycleLive.pipe(Layer.provide([FineTuningJobsRepo.Default, ModelInstancesRepo.Default])),
  AgentRuntimeLifecycleLive.pipe(Layer.provide(AgentRuntimeRepo.Default)),
  ModelDeploymentLifecycleLive.pipe(Layer.provide(ModelDeploymentsRepo.Default)),
  UploadScheduleFiringLive.pipe(
    Layer.provide(UploadSchedulesRepo.Default),
    Layer.provide(UploadIngestionLive),
    Layer.provide([UploadsRepo.Default, DataSourcesRepo.Default])
  ),
  // uploads embed with the application's providers too
  KnowledgeBaseUploadLive.pipe(
    Layer.provide(UploadRunner.Default),
    Layer.provide(KnowledgeBaseEmbedder.Default),
    Layer.provide(BuiltinEmbeddings.onThread),
    Layer.provide(ModelResolver.DefaultWithoutDependencies),
    Layer.provide([
      UploadsRepo.Default,
      ArtifactsRepo.Default,
      ChunksRepo.Default,
      KnowledgeBasesRepo.Default,
      ModelDeploymentsRepo.Default,
      ModelInstancesRepo.Default,
      ModelServersRepo.Default
    ])
  ),
  // the application's providers (`ModelProviders`, from `Lifecycles.lazy`): one upstream client and key per process
  EvaluationRunLive.pipe(
    Layer.provideMerge(WidgetComputationLive),
    Layer.provide(WidgetComputations.DefaultWithoutDependencies),
    Layer.provide(DashboardsRepo.Default),
    Layer.provide(EvaluationRunner.DefaultWithoutDependencies),
    Layer.provide(ModelResolver.DefaultWithoutDependencies),
    Layer.provide([EvaluationsRepo.Default, EvaluationItemsRepo.Default, ModelDeploymentsRepo.Default, ModelInstancesRepo.Default, ModelServersRepo.Default])
  )
).pipe(Layer.provide(ParkedSteps.Default))

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
 * from its last completed step at the next start, as after kill -9.
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
        entityTerminationTimeout: Duration.seconds(2)
      }
    }))
  )))

export const layer: EngineModule["layer"] = WorkflowsLive.pipe(Layer.provideMerge(EngineLive))

const workflows = {
  PackageInstall,
  ApplicationDeployment: ApplicationDeploymentLifecycle,
  FineTuning: FineTuningLifecycle,
  AgentRuntimeDeployment: AgentRuntimeLifecycle,
  ModelDeployment: ModelDeploymentLifecycle,
  UploadScheduleFiring,
  EvaluationRun,
  WidgetComputation,
  KnowledgeBaseUpload
} as const

export const start = (request: LifecycleStart) =>
  workflows[request.workflow].execute(
    { id: request.id, account_id: request.account_id, ...(request.run === undefined ? {} : { run: request.run }) },
    { discard: true }
  ).pipe(
    Effect.asVoid
  )

/** Any parked step's deferred: the token names the workflow, its execution and the step's deferred. */
const parkedStep = advanceDeferred("step")

export const advance = (token: string) =>
  DurableDeferred.done(parkedStep, { token: DurableDeferred.Token.make(token), exit: Exit.void })
