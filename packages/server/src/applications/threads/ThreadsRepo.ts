import { SqlClient } from "@effect/sql"
import { ChatThread, ChatThreadFeedback } from "@platform-kit/schema"
import { Effect, Schema } from "effect"
import { makeDocuments } from "../../sql/documents.js"

export class ThreadsRepo extends Effect.Service<ThreadsRepo>()("@platform-kit/server/ApplicationThreadsRepo", {
  effect: makeDocuments({
    table: "application_threads",
    label: "Thread",
    schema: ChatThread,
    columns: (thread) => ({
      id: thread.id,
      account_id: thread.account_id,
      created_at: thread.created_at,
      application_variant_id: thread.application_variant_id,
      created_by_user_id: thread.created_by_user_id
    })
  })
}) {}

const encodeFeedback = Schema.encodeSync(ChatThreadFeedback)
const decodeFeedback = Schema.decodeUnknownSync(ChatThreadFeedback)

/** Feedback on messages: at most one per message (interaction), in the thread's account. */
export class FeedbackRepo extends Effect.Service<FeedbackRepo>()("@platform-kit/server/ApplicationMessageFeedbackRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Stores `feedback`, replacing the message's earlier one. */
    const put = (feedback: ChatThreadFeedback, accountId: string) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM application_message_feedback WHERE application_interaction_id = ${feedback.application_interaction_id}`
        yield* sql`INSERT INTO application_message_feedback ${
          sql.insert({
            id: feedback.id,
            account_id: accountId,
            created_at: feedback.created_at,
            application_interaction_id: feedback.application_interaction_id,
            doc: JSON.stringify(encodeFeedback(feedback)),
            form: null
          })
        }`
        return feedback
      }).pipe(Effect.orDie)

    /** The feedback of each of `interactionIds` that has one. */
    const ofMessages = (interactionIds: ReadonlyArray<string>) =>
      interactionIds.length === 0 ? Effect.succeed(new Map<string, ChatThreadFeedback>()) : Effect.map(
        Effect.orDie(sql<{ doc: string }>`SELECT doc FROM application_message_feedback WHERE ${sql.in("application_interaction_id", interactionIds)}`),
        (rows) => new Map(rows.map((row) => decodeFeedback(JSON.parse(row.doc))).map((feedback) => [feedback.application_interaction_id, feedback]))
      )

    /** Removes the message's feedback; whether it had one. */
    const remove = (interactionId: string) =>
      Effect.map(
        Effect.orDie(sql<{ id: string }>`DELETE FROM application_message_feedback WHERE application_interaction_id = ${interactionId} RETURNING id`),
        (rows) => rows.length > 0
      )

    return { put, ofMessages, remove } as const
  })
}) {}
