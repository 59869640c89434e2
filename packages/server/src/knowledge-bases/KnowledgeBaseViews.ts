import { KnowledgeBase } from "@platform-kit/schema"
import type { KnowledgeBaseView } from "@platform-kit/schema"
import { Effect } from "effect"
import { ArtifactsRepo } from "./artifacts/ArtifactsRepo.js"
import { indexConfiguration } from "./indexConfiguration.js"
import type { StoredKnowledgeBase } from "./KnowledgeBasesRepo.js"
import { UploadSchedulesRepo } from "./schedules/UploadSchedulesRepo.js"

/**
 * Stored knowledge bases as the API answers them: `artifacts_status` always, `connections`,
 * `artifact_count` and `kb_index_configuration` only with their view. Costs one query for the
 * artifact counts and, with `Connections`, one for the connections, however many bases.
 */
export class KnowledgeBaseViews extends Effect.Service<KnowledgeBaseViews>()(
  "@platform-kit/server/KnowledgeBaseViews",
  {
    effect: Effect.gen(function*() {
      const artifacts = yield* ArtifactsRepo
      const schedules = yield* UploadSchedulesRepo

      const present = (stored: ReadonlyArray<StoredKnowledgeBase>, views: ReadonlyArray<KnowledgeBaseView>) =>
        Effect.gen(function*() {
          const ids = stored.map((kb) => kb.knowledge_base_id)
          const counts = yield* artifacts.counts(ids)
          const connections = views.includes("Connections") ? yield* schedules.connections(ids) : undefined
          return stored.map((kb) => {
            const count = counts.get(kb.knowledge_base_id)!
            return new KnowledgeBase({
              ...kb,
              artifacts_status: count.status,
              ...(connections !== undefined ? { connections: connections.get(kb.knowledge_base_id) ?? [] } : {}),
              ...(views.includes("ArtifactCount") ? { artifact_count: count.total } : {}),
              ...(views.includes("IndexConfiguration")
                ? { kb_index_configuration: indexConfiguration(kb.index_backend) }
                : {})
            }, true)
          })
        })

      const presentOne = (stored: StoredKnowledgeBase, views: ReadonlyArray<KnowledgeBaseView>) =>
        Effect.map(present([stored], views), (all) => all[0]!)

      return { present, presentOne } as const
    }),
    dependencies: [ArtifactsRepo.Default, UploadSchedulesRepo.Default]
  }
) {}
