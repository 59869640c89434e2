import { SpanAssessment, ValidationError, ValidationIssue, valueFieldOf } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { SpanAssessmentsRepo } from "./SpanAssessmentsRepo.js"
import { SpansRepo } from "../spans/SpansRepo.js"
import type { ImplementGroup } from "../http/groups.js"

/** 422 for a PATCH that clears the value field of the assessment's own type. */
const valueRequired = (assessment: SpanAssessment) => {
  const field = valueFieldOf(assessment.assessment_type)
  return new ValidationError({
    detail: [
      new ValidationIssue({
        loc: ["body", field],
        msg: `${field} is required for a ${assessment.assessment_type} assessment and cannot be cleared`,
        type: "value_error",
        input: null
      })
    ]
  })
}

export const SpanAssessmentsHttp = (group: ImplementGroup) =>
  group("spanAssessments", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* SpanAssessmentsRepo
    const spans = yield* SpansRepo

    /** The assessment `id` in one of the caller's accounts, else 404. */
    const owned = (id: string) => Effect.flatMap(callerAccounts, (accounts) => repo.get(id, accounts))

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          // the span assessed is one the account stores (docs/span-assessments.md)
          yield* spans.ensureInTrace(account_id, payload.span_id, payload.trace_id)
          const [assessment_id, now] = yield* freshIdentity
          const creator = yield* createdByIdentity
          return yield* repo.insert(
            new SpanAssessment({
              assessment_id,
              trace_id: payload.trace_id,
              span_id: payload.span_id,
              created_by: creator.id,
              assessment_type: payload.assessment_type,
              object: "span.assessment",
              comment: payload.comment ?? null,
              rating: payload.rating ?? null,
              approval: payload.approval ?? null,
              rubric: payload.rubric ?? null,
              metadata: payload.metadata ?? null,
              overwrite: payload.overwrite ?? null,
              account_id,
              created_at: now,
              updated_at: now
            })
          )
        }))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const items = yield* repo.list(accountIds, urlParams)
          return { items, object: "list" as const }
        }))
      .handle("get", ({ path }) => owned(path.assessment_id))
      .handle("update", ({ path, payload }) =>
        repo.transaction(
          Effect.gen(function*() {
            const current = yield* owned(path.assessment_id)
            if (payload[valueFieldOf(current.assessment_type)] === null) return yield* Effect.fail(valueRequired(current))
            const pick = <K extends keyof typeof payload>(key: K) =>
              payload[key] !== undefined ? payload[key] : current[key]
            return yield* repo.update(
              new SpanAssessment({
                ...current,
                comment: pick("comment"),
                rating: pick("rating"),
                approval: pick("approval"),
                rubric: pick("rubric"),
                metadata: pick("metadata"),
                overwrite: pick("overwrite"),
                updated_at: yield* nowIso
              })
            )
          })
        ))
      .handle("delete", ({ path }) =>
        repo.transaction(
          Effect.gen(function*() {
            const current = yield* owned(path.assessment_id)
            yield* repo.remove(current.assessment_id)
            return current
          })
        ))
  })
).pipe(Layer.provide([SpanAssessmentsRepo.Default, SpansRepo.Default]))
