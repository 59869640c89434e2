/**
 * The knowledge bases' background work, for the engine (../workflows.ts): upload schedules' firings
 * (schedules/workflow.ts) and uploads (uploads/workflow.ts), which embed with the application's
 * providers too.
 */
import { Layer } from "effect"
import type { FamilyWorkflows } from "../engine/Lifecycles.js"
import { ModelDeploymentsRepo } from "../models/deployments/ModelDeploymentsRepo.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import { ModelInstancesRepo } from "../models/registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../models/servers/ModelServersRepo.js"
import { ArtifactsRepo } from "./artifacts/ArtifactsRepo.js"
import { ChunksRepo } from "./artifacts/ChunksRepo.js"
import { DataSourcesRepo } from "./data-sources/DataSourcesRepo.js"
import { KnowledgeBasesRepo } from "./KnowledgeBasesRepo.js"
import { KnowledgeBaseEmbedder } from "./retrieval/embedding.js"
import { BuiltinEmbeddings } from "./retrieval/embeddingThread.js"
import { UploadSchedulesRepo } from "./schedules/UploadSchedulesRepo.js"
import { UploadScheduleFiring, UploadScheduleFiringLive } from "./schedules/workflow.js"
import { UploadRunner } from "./uploads/runner.js"
import { UploadsRepo } from "./uploads/UploadsRepo.js"
import { KnowledgeBaseUpload, KnowledgeBaseUploadLive, UploadIngestionLive } from "./uploads/workflow.js"

export const KnowledgeBaseWorkflows = {
  workflows: { UploadScheduleFiring, KnowledgeBaseUpload },
  layer: Layer.mergeAll(
    UploadScheduleFiringLive.pipe(
      Layer.provide(UploadSchedulesRepo.Default),
      Layer.provide(UploadIngestionLive),
      Layer.provide([UploadsRepo.Default, DataSourcesRepo.Default])
    ),
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
    )
  )
} satisfies FamilyWorkflows
