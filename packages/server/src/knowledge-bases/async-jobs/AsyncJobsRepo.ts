/**
 * A knowledge base's async jobs (the SDK's `knowledge_bases.async_jobs`), read from what the base
 * stores already: each upload is a job (an upload a schedule's run made included: the run's job is
 * its upload), and each upload schedule run that failed before it made an upload is a job of its
 * own, `Failed`. One query of both tables, newest first, paged in the database.
 */
import { SqlClient } from "@effect/sql"
import {
  AsyncJob,
  type AsyncJobStatus,
  KnowledgeBaseUploadItem,
  UploadScheduleRun,
  type UploadStatus
} from "@platform-kit/schema"
import { Effect, Schema } from "effect"
import { jsonFieldText } from "../../sql/dialect.js"
import { makeRead } from "../../sql/reads.js"
import { ArtifactsRepo } from "../artifacts/ArtifactsRepo.js"

/** What a list's `status` keeps: `Active` is `Pending` and `Running`, `All` (or none) every status. */
export type AsyncJobFilter = AsyncJobStatus | "Active" | "All"

/** The job statuses a filter keeps. */
const statusesOf = (filter: AsyncJobFilter | undefined): ReadonlyArray<AsyncJobStatus> =>
  filter === undefined || filter === "All"
    ? ["Pending", "Running", "Completed", "Failed", "Canceled"]
    : filter === "Active"
    ? ["Pending", "Running"]
    : [filter]

/** The upload statuses that are job statuses (an upload's status is its job's; no upload is `Pending`). */
const uploadStatuses: ReadonlyArray<UploadStatus> = ["Running", "Completed", "Failed", "Canceled"]

const decodeUpload = Schema.decodeUnknownSync(KnowledgeBaseUploadItem)
const decodeRun = Schema.decodeUnknownSync(UploadScheduleRun)

/** A document column as read: the text on SQLite (and PostgreSQL's JSON, as the driver gives it). */
const parsed = (doc: unknown) => (typeof doc === "string" ? JSON.parse(doc) : doc)

export class AsyncJobsRepo extends Effect.Service<AsyncJobsRepo>()("@platform-kit/server/AsyncJobsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = yield* makeRead
    const artifacts = yield* ArtifactsRepo

    /** One page of the jobs of knowledge base `knowledgeBaseId` (in `accountId`) that `filter` keeps, newest first. */
    const page = (
      knowledgeBaseId: string,
      accountId: string,
      options: { readonly page: number; readonly limit: number; readonly status?: AsyncJobFilter | undefined }
    ) =>
      Effect.gen(function*() {
        const wanted = statusesOf(options.status)
        const uploads = uploadStatuses.filter((status) => wanted.includes(status))
        const failedRuns = wanted.includes("Failed")
        const parts = [
          ...(uploads.length === 0 ? [] : [
            sql`SELECT 'upload' AS kind, id, created_at, doc FROM kb_uploads
              WHERE knowledge_base_id = ${knowledgeBaseId} AND account_id = ${accountId} AND ${sql.in("status", uploads)}`
          ]),
          ...(!failedRuns ? [] : [
            sql`SELECT 'run' AS kind, id, created_at, doc FROM kb_upload_schedule_runs
              WHERE account_id = ${accountId}
              AND upload_schedule_id IN (SELECT id FROM kb_upload_schedules WHERE knowledge_base_id = ${knowledgeBaseId})
              AND ${jsonFieldText(sql, "doc", "status")} = 'FAILED'`
          ])
        ]
        if (parts.length === 0) return []
        const offset = Math.min((options.page - 1) * options.limit, Number.MAX_SAFE_INTEGER)
        const union = parts.length === 1 ? parts[0]! : sql`${parts[0]!} UNION ALL ${parts[1]!}`
        const rows = yield* read(sql<{ kind: "upload" | "run"; id: string; doc: unknown }>`
          SELECT kind, id, doc FROM (${union}) jobs ORDER BY created_at DESC, id DESC LIMIT ${options.limit} OFFSET ${offset}`)
        const uploadIds = rows.filter((row) => row.kind === "upload").map((row) => row.id)
        const counts = yield* artifacts.countsOfUploads(uploadIds)
        return rows.map((row) => {
          if (row.kind === "run") {
            const run = decodeRun(parsed(row.doc))
            return new AsyncJob({
              id: run.id,
              account_id: run.account_id,
              job_type: "knowledge_base_upload",
              status: "Failed",
              created_by_user_id: null,
              job_metadata: {
                knowledge_base_id: run.knowledge_base_id,
                upload_schedule_id: run.upload_schedule_id,
                upload_schedule_run_id: run.id,
                knowledge_base_data_source_id: run.knowledge_base_data_source_id,
                scheduled_at: run.scheduled_at,
                status_reason: run.status_reason
              },
              parent_job_id: null,
              progress: null,
              created_at: run.created_at,
              updated_at: run.created_at
            }, true)
          }
          const upload = decodeUpload(parsed(row.doc))
          const count = counts.get(upload.id)
          return new AsyncJob({
            id: upload.id,
            account_id: upload.account_id,
            job_type: "knowledge_base_upload",
            status: upload.status,
            created_by_user_id: upload.created_by_user_id,
            job_metadata: {
              knowledge_base_id: upload.knowledge_base_id,
              upload_id: upload.id,
              data_source_id: upload.data_source_id,
              created_by_schedule_id: upload.created_by_schedule_id,
              source: upload.data_source_config.source,
              status_reason: upload.status_reason
            },
            parent_job_id: null,
            progress: count === undefined ? null : { ...count.status, artifacts_total: count.total },
            created_at: upload.created_at,
            updated_at: upload.updated_at
          }, true)
        })
      }).pipe(Effect.orDie)

    return { page } as const
  }),
  dependencies: [ArtifactsRepo.Default]
}) {}
