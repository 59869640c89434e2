import { SqlClient } from "@effect/sql"
import { NotFound, Question, QuestionSet, QuestionSetWithQuestions } from "@platform-kit/schema"
import { Effect, Schema } from "effect"
import { makeDocuments } from "../sql/documents.js"
import { makeRead } from "../sql/reads.js"

/** A question set as stored: the wire resource plus its ordered `question_ids` (not a field of the answer). */
export const StoredQuestionSet = Schema.Struct({ ...QuestionSet.fields, question_ids: Schema.Array(Schema.String) })
export type StoredQuestionSet = typeof StoredQuestionSet.Type

/** The set as answered (`question_ids` left out). */
export const questionSetOf = ({ question_ids: _, ...set }: StoredQuestionSet) => new QuestionSet(set, true)

export class QuestionSetsRepo extends Effect.Service<QuestionSetsRepo>()("@platform-kit/server/QuestionSetsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "question_sets",
      label: "Question set",
      schema: StoredQuestionSet,
      columns: (set) => ({ id: set.id, account_id: set.account_id, created_at: set.created_at, archived_at: set.archived_at })
    })
    const sql = yield* SqlClient.SqlClient
    const read = yield* makeRead
    const decodeQuestion = Schema.decodeUnknownSync(Question)

    /**
     * The v4 questions of `ids` in `accountIds`, in the order of `ids`; the first id that is not
     * one of them is a 404 naming it (how a set's `question_ids` are checked).
     */
    const questionsOf = (ids: ReadonlyArray<string>, accountIds: ReadonlyArray<string>): Effect.Effect<Array<Question>, NotFound> =>
      Effect.gen(function*() {
        const rows = ids.length === 0 || accountIds.length === 0
          ? []
          : yield* read(sql<{ id: string; doc: string }>`SELECT id, doc FROM questions WHERE ${sql.in("id", ids)} AND ${
            sql.in("account_id", accountIds)
          }`).pipe(Effect.orDie)
        const byId = new Map(rows.map((row) => [row.id, row.doc]))
        const missing = ids.find((id) => !byId.has(id))
        if (missing !== undefined) return yield* Effect.fail(new NotFound({ detail: `Question ${missing} not found` }))
        return ids.map((id) => decodeQuestion(JSON.parse(byId.get(id)!)))
      })

    /**
     * The set `id` of `accountIds` with its questions in the order of its `question_ids`, archived
     * or not; 404 naming it otherwise. What evaluations read for `evaluation_config_expanded` and
     * the judge for the questions it answers. A question the set names is never gone (v4 questions
     * are not deleted); should one be, it is left out rather than failing the read.
     */
    const withQuestions = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<QuestionSetWithQuestions, NotFound> =>
      Effect.gen(function*() {
        const stored = yield* documents.get(id, accountIds)
        const questions = yield* presentQuestions(stored.question_ids, stored.account_id)
        return new QuestionSetWithQuestions({ ...questionSetOf(stored), questions }, true)
      })

    /** The questions of `ids` that exist in `accountId`, in the order of `ids`. */
    const presentQuestions = (ids: ReadonlyArray<string>, accountId: string): Effect.Effect<Array<Question>> =>
      Effect.map(questionsOfSets([{ question_ids: ids, account_id: accountId }]), (all) => all[0]!)

    /**
     * The questions of each set (those that exist in its account, in the order of its
     * `question_ids`), read with one statement for all of them: a list page's `view=Questions`.
     */
    const questionsOfSets = (
      sets: ReadonlyArray<Pick<StoredQuestionSet, "question_ids" | "account_id">>
    ): Effect.Effect<Array<Array<Question>>> =>
      Effect.gen(function*() {
        const ids = [...new Set(sets.flatMap((set) => set.question_ids))]
        const accounts = [...new Set(sets.map((set) => set.account_id))]
        const rows = ids.length === 0
          ? []
          : yield* read(sql<{ id: string; account_id: string; doc: string }>`SELECT id, account_id, doc FROM questions WHERE ${
            sql.in("id", ids)
          } AND ${sql.in("account_id", accounts)}`).pipe(Effect.orDie)
        const byId = new Map(rows.map((row) => [row.id, row]))
        return sets.map((set) =>
          set.question_ids.flatMap((id) => {
            const row = byId.get(id)
            return row !== undefined && row.account_id === set.account_id ? [decodeQuestion(JSON.parse(row.doc))] : []
          })
        )
      })

    return { ...documents, questionsOf, questionsOfSets, withQuestions } as const
  })
}) {}
