/**
 * Knowledge base data sources (`/v4/knowledge-base-data-sources`): where uploads read from (a
 * bucket and prefix of the object store), checked by `verify`; a connection to a base is deleted
 * with the artifacts it made.
 */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import {
  DataSourceConnectionDeleteResponse,
  DataSourceVerification,
  GenericDeleteResponse,
  KnowledgeBaseDataSource,
  pageOf
} from "@platform-kit/schema"
import { Effect, Either, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { freshIdentity, nowIso } from "../../platform/Ids.js"
import { ObjectStore } from "../../platform/ObjectStore.js"
import { knowledgeBaseForWrite, notFound } from "../access.js"
import { ArtifactsRepo } from "../artifacts/ArtifactsRepo.js"
import { ChunksRepo } from "../artifacts/ChunksRepo.js"
import { UploadSchedulesRepo } from "../schedules/UploadSchedulesRepo.js"
import { UploadsRepo } from "../uploads/UploadsRepo.js"
import { DataSourcesRepo } from "./DataSourcesRepo.js"

export const DataSourcesHandlers = Effect.gen(function*() {
  const dataSources = yield* DataSourcesRepo
  const schedules = yield* UploadSchedulesRepo
  const artifacts = yield* ArtifactsRepo
  const chunks = yield* ChunksRepo
  const uploads = yield* UploadsRepo
  const store = yield* ObjectStore
  return {
    createDataSource: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "createDataSource", ({ payload }) =>
      Effect.gen(function*() {
        const account_id = yield* accountForWrite(payload.account_id)
        const [id, created_at] = yield* freshIdentity
        return yield* dataSources.insert(
          new KnowledgeBaseDataSource({
            id,
            name: payload.name,
            description: payload.description ?? null,
            data_source_config: payload.data_source_config,
            tagging_information: payload.tagging_information ?? null,
            account_id,
            ...(yield* createdBy),
            created_at,
            updated_at: created_at
          }, true)
        )
      })),
    getDataSource: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "getDataSource", ({ path }) =>
      Effect.flatMap(callerAccounts, (accounts) => dataSources.get(path.knowledge_base_data_source_id, accounts))),
    listDataSources: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "listDataSources", ({ urlParams }) =>
      Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
        dataSources.page({ accountIds, ...pageOf(urlParams) }))),
    updateDataSource: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "updateDataSource", ({ path, payload }) =>
      Effect.gen(function*() {
        const accounts = yield* callerAccounts
        const updated_at = yield* nowIso
        return yield* dataSources.transaction(Effect.gen(function*() {
          const current = yield* dataSources.get(path.knowledge_base_data_source_id, accounts)
          return yield* dataSources.update(new KnowledgeBaseDataSource({
            ...current,
            name: payload.name ?? current.name,
            description: payload.description ?? current.description,
            tagging_information: payload.tagging_information ?? current.tagging_information,
            updated_at
          }, true))
        }))
      })),
    deleteDataSource: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "deleteDataSource", ({ path }) =>
      Effect.gen(function*() {
        const accounts = yield* callerAccounts
        const id = path.knowledge_base_data_source_id
        yield* dataSources.transaction(Effect.gen(function*() {
          const source = yield* dataSources.get(id, accounts)
          // its schedules stop with it; the artifacts it made stay their bases' (disconnect them first to remove them)
          yield* schedules.removeOf(undefined, source.id)
          yield* dataSources.remove(source.id)
        }))
        return new GenericDeleteResponse({ count: 1, success: true })
      })),
    verifyDataSource: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "verifyDataSource", ({ path }) =>
      Effect.gen(function*() {
        const source = yield* dataSources.get(path.knowledge_base_data_source_id, yield* callerAccounts)
        const config = source.data_source_config
        const listed = yield* Effect.either(store.list(config.object_store_bucket, config.object_store_prefix))
        return new DataSourceVerification({
          knowledge_base_data_source_id: source.id,
          readable: Either.isRight(listed),
          status_reason: Either.isLeft(listed) ? listed.left.message : null,
          object_count: Either.isRight(listed) ? listed.right.objects.length : 0
        })
      })),
    deleteDataSourceConnection: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "deleteDataSourceConnection", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        const id = path.knowledge_base_data_source_id
        const artifactsOf = Effect.map(
          artifacts.ofDataSource(kb.knowledge_base_id, id, kb.account_id),
          (found) => found.map((artifact) => artifact.artifact_id)
        )
        // the data source of the base's account, or, deleted since, one its artifacts still name
        const source = yield* dataSources.findById(id, [kb.account_id])
        if (Option.isNone(source) && (yield* artifactsOf).length === 0) return yield* Effect.fail(notFound("Knowledge base data source", id))
        const count = urlParams.dry_run === true
          ? (yield* artifactsOf).length
          : yield* artifacts.transaction(Effect.gen(function*() {
            // the base first, then what to delete as it is now (an upload of the source may have added some)
            yield* chunks.lockBase(kb.knowledge_base_id)
            const ids = yield* artifactsOf
            yield* chunks.removeOfArtifacts(kb.knowledge_base_id, ids)
            yield* artifacts.removeAll(ids)
            yield* schedules.removeOf(kb.knowledge_base_id, id)
            yield* uploads.removeOfDataSource(kb.knowledge_base_id, id)
            return ids.length
          }))
        return new DataSourceConnectionDeleteResponse({ artifacts_to_delete: { [id]: count }, deletion_workflow_id: null })
      }))
  }
})
