/**
 * Uploads of a knowledge base (docs/knowledge-bases.md "Uploads"): a create stores the upload
 * `Running` and starts its workflow (workflow.ts); reads answer where it stands, its
 * artifacts counted at every moment; a cancel stops it.
 */
import {
  CancelUploadResponse,
  CreateKnowledgeBaseUploadResponse,
  KnowledgeBaseArtifact,
  KnowledgeBaseUpload,
  NotFound,
  pageOf,
  UploadArtifact,
  UploadFilesResponse
} from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { Lifecycles } from "../../engine/Lifecycles.js"
import type { ImplementGroup } from "../../http/groups.js"
import { freshIdentity, nowIso } from "../../platform/Ids.js"
import { ArtifactsRepo, inProgress } from "../artifacts/ArtifactsRepo.js"
import { ChunksRepo } from "../artifacts/ChunksRepo.js"
import { DataSourcesRepo } from "../data-sources/DataSourcesRepo.js"
import { KnowledgeBasesRepo } from "../KnowledgeBasesRepo.js"
import { readUploadFilesForm } from "./form.js"
import { newUpload, StoredUpload, taggingOfDataSource, uploadItem, UploadsRepo } from "./UploadsRepo.js"

const notFound = (label: string, id: string) => new NotFound({ detail: `${label} ${id} not found` })

const uploadArtifact = (artifact: KnowledgeBaseArtifact) =>
  new UploadArtifact({
    artifact_id: artifact.artifact_id,
    artifact_name: artifact.artifact_name,
    artifact_uri: artifact.artifact_uri,
    artifact_uri_public: artifact.artifact_uri_public,
    source: artifact.source,
    status: artifact.status,
    status_reason: artifact.status_reason,
    tags: artifact.tags,
    chunks_status: artifact.chunks_status,
    updated_at: artifact.updated_at
  }, true)

export const KnowledgeBaseUploadsHttp = (group: ImplementGroup) =>
  group("knowledgeBaseUploads", (handlers) =>
  Effect.gen(function*() {
    const knowledgeBases = yield* KnowledgeBasesRepo
    const dataSources = yield* DataSourcesRepo
    const uploads = yield* UploadsRepo
    const artifacts = yield* ArtifactsRepo
    const lifecycles = yield* Lifecycles
    const chunks = yield* ChunksRepo

    /** Upload `uploadId` of knowledge base `knowledgeBaseId`, both the caller's (else 404). */
    const uploadForCaller = (knowledgeBaseId: string, uploadId: string) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBases.get(knowledgeBaseId, yield* callerAccounts)
        const found = yield* uploads.findInKnowledgeBase(kb.knowledge_base_id, uploadId, [kb.account_id])
        return yield* Option.match(found, { onNone: () => Effect.fail(notFound("Upload", uploadId)), onSome: Effect.succeed })
      })

    return handlers
      .handle("create", ({ path, payload }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBases.get(path.knowledge_base_id, yield* callerAccounts)
          const [id, created_at] = yield* freshIdentity
          const common = {
            id,
            knowledge_base_id: kb.knowledge_base_id,
            force_reupload: payload.force_reupload ?? false,
            created_by_schedule_id: null,
            schedule_firing: null,
            account_id: kb.account_id,
            ...(yield* createdBy),
            created_at
          }
          const upload = "data_source_id" in payload
            ? yield* Effect.map(dataSources.get(payload.data_source_id, [kb.account_id]), (source) =>
              newUpload({
                ...common,
                data_source_config: source.data_source_config,
                data_source_id: source.id,
                chunking_strategy_config: payload.chunking_strategy_config,
                tagging_information: payload.tagging_information ?? taggingOfDataSource(source.tagging_information),
                chunks: null
              }))
            : payload.data_source_config.source === "LocalChunks"
            ? newUpload({
              ...common,
              data_source_config: payload.data_source_config,
              data_source_id: null,
              chunking_strategy_config: { strategy: "pre_chunked" },
              tagging_information: payload.tagging_information ?? null,
              chunks: "chunks" in payload ? payload.chunks : []
            })
            : newUpload({
              ...common,
              data_source_config: payload.data_source_config,
              data_source_id: null,
              chunking_strategy_config: "chunking_strategy_config" in payload ? payload.chunking_strategy_config ?? null : null,
              tagging_information: payload.tagging_information ?? null,
              chunks: null
            })
          yield* uploads.insert(upload)
          yield* lifecycles.start({ workflow: "KnowledgeBaseUpload", id, account_id: kb.account_id })
          return new CreateKnowledgeBaseUploadResponse({ upload_id: id })
        }))
      .handle("uploadFiles", ({ path, payload }) =>
        Effect.gen(function*() {
          // the form first: a request's shape is checked before what it names (docs/decisions.md "Wire")
          const form = yield* readUploadFilesForm(payload)
          const kb = yield* knowledgeBases.get(path.knowledge_base_id, yield* callerAccounts)
          const [id, created_at] = yield* freshIdentity
          const upload = newUpload({
            id,
            knowledge_base_id: kb.knowledge_base_id,
            data_source_config: form.data_source_config,
            data_source_id: null,
            chunking_strategy_config: form.chunking_strategy_config,
            force_reupload: form.force_reupload,
            tagging_information: form.tagging_information,
            chunks: null,
            created_by_schedule_id: null,
            schedule_firing: null,
            account_id: kb.account_id,
            ...(yield* createdBy),
            created_at
          })
          // the upload and its files in one transaction: its run finds them all
          yield* uploads.transaction(Effect.zipRight(uploads.insert(upload), uploads.saveFiles(id, form.files)))
          yield* lifecycles.start({ workflow: "KnowledgeBaseUpload", id, account_id: kb.account_id })
          return new UploadFilesResponse({ upload_ids: [id] })
        }))
      .handle("get", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const upload = yield* uploadForCaller(path.knowledge_base_id, path.upload_id)
          const counts = yield* artifacts.countsOfUpload(upload.id)
          const listed = urlParams.include_artifact_list === true ? yield* artifacts.ofUpload(upload.id, upload.account_id) : []
          const item = uploadItem(upload)
          return new KnowledgeBaseUpload({
            ...item,
            upload_id: item.id,
            artifacts: listed.map(uploadArtifact),
            artifacts_status: counts.status
          }, true)
        }))
      .handle("list", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const kb = yield* knowledgeBases.get(path.knowledge_base_id, yield* accountsForRead(urlParams.account_id))
          const page = yield* uploads.pageOfKnowledgeBase(kb.knowledge_base_id, kb.account_id, pageOf(urlParams), urlParams.status)
          return { ...page, items: page.items.map(uploadItem) }
        }))
      .handle("cancel", ({ path }) =>
        Effect.gen(function*() {
          const found = yield* uploadForCaller(path.knowledge_base_id, path.upload_id)
          const updated_at = yield* nowIso
          const canceled = yield* uploads.transaction(Effect.gen(function*() {
            // the base first, as every write of its artifacts (one lock order on PostgreSQL)
            yield* chunks.lockBase(found.knowledge_base_id)
            const upload = yield* uploads.get(found.id, [found.account_id])
            if (upload.status !== "Running") return false
            yield* uploads.update(new StoredUpload({ ...upload, status: "Canceled", status_reason: "Canceled by request", updated_at }, true))
            for (const artifact of yield* artifacts.ofUpload(upload.id, upload.account_id)) {
              if (inProgress.includes(artifact.status)) {
                yield* artifacts.update(new KnowledgeBaseArtifact({ ...artifact, status: "Canceled", status_reason: "Upload canceled", updated_at }, true))
              }
            }
            return true
          }))
          return new CancelUploadResponse({ canceled, upload_id: found.id })
        }))
  })
).pipe(Layer.provide(Layer.mergeAll(KnowledgeBasesRepo.Default, DataSourcesRepo.Default, UploadsRepo.Default, ArtifactsRepo.Default, ChunksRepo.Default)))
