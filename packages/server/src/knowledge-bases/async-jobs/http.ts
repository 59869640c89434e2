/** A knowledge base's async jobs (AsyncJobsRepo.ts): a bare array, one v4 page of them. */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { pageOf } from "@platform-kit/schema"
import { Effect } from "effect"
import { accountsForRead } from "../../auth/access.js"
import { KnowledgeBasesRepo } from "../KnowledgeBasesRepo.js"
import { AsyncJobsRepo } from "./AsyncJobsRepo.js"

export const AsyncJobsHandlers = Effect.gen(function*() {
  const knowledgeBases = yield* KnowledgeBasesRepo
  const jobs = yield* AsyncJobsRepo
  return {
    listAsyncJobs: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "listAsyncJobs", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBases.get(path.knowledge_base_id, yield* accountsForRead(urlParams.account_id))
        return yield* jobs.page(kb.knowledge_base_id, kb.account_id, { ...pageOf(urlParams), status: urlParams.status })
      }))
  }
})
