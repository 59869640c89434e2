import { SqlClient } from "@effect/sql"
import { ApplicationInteraction, MessageSpan, NotFound } from "@platform-kit/schema"
import { Context, Effect, Schema } from "effect"
import { makeDocuments } from "../sql/documents.js"
import { writesTogether } from "../sql/writesTogether.js"

const encodeSpan = Schema.encodeSync(MessageSpan)
const decodeSpan = Schema.decodeUnknownSync(MessageSpan)

/**
 * Where a run puts its interaction (and the interaction's spans) instead of writing it, when its
 * caller provides one: a builder v4 evaluation's step (evaluations-v4/build.ts) writes its test
 * cases' interactions with their results, one commit a step rather than one a test case. Without
 * it (every other run) the run writes its interaction itself (process.ts).
 */
export class InteractionsDeferred extends Context.Tag("@platform-kit/server/InteractionsDeferred")<
  InteractionsDeferred,
  { readonly defer: (interaction: ApplicationInteraction, spans: ReadonlyArray<MessageSpan>) => void }
>() {}

export class InteractionsRepo extends Effect.Service<InteractionsRepo>()("@platform-kit/server/InteractionsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "application_interactions",
      label: "Application interaction",
      schema: ApplicationInteraction,
      columns: (interaction) => ({
        id: interaction.id,
        account_id: interaction.account_id,
        created_at: interaction.created_at,
        application_spec_id: interaction.application_spec_id,
        application_variant_id: interaction.application_variant_id,
        start_ms: Date.parse(interaction.start_timestamp),
        duration_ms: interaction.duration_ms,
        input_tokens: interaction.input_tokens,
        output_tokens: interaction.output_tokens,
        is_error: interaction.error === null ? 0 : 1,
        user_id: interaction.user_id,
        feedback: interaction.feedback === null ? null : interaction.feedback === "thumbs_up" ? 1 : 0,
        chat_thread_id: interaction.chat_thread_id
      })
    })
    const sql = yield* SqlClient.SqlClient

    /**
     * The interaction, its node latencies and its spans (what each node did), in one transaction
     * that joins the writes arriving with it (sql/writesTogether.ts): a process costs no commit of its own.
     */
    const insert = (interaction: ApplicationInteraction, spans: ReadonlyArray<MessageSpan> = []) =>
      Effect.gen(function*() {
        yield* documents.insert(interaction)
        const spanRows = spans.map((span, position) => ({
          id: span.id,
          interaction_id: interaction.id,
          position,
          doc: JSON.stringify(encodeSpan(span))
        }))
        for (let start = 0; start < spanRows.length; start += 500) {
          yield* sql`INSERT INTO application_interaction_spans ${sql.insert(spanRows.slice(start, start + 500))}`
        }
        if (interaction.node_latencies.length > 0) {
          const rows = interaction.node_latencies.map((node, position) => ({
            interaction_id: interaction.id,
            position,
            node_id: node.node_id,
            duration_ms: node.duration_ms
          }))
          // in chunks, to stay under the database's limit on bound parameters
          for (let start = 0; start < rows.length; start += 500) {
            yield* sql`INSERT INTO application_interaction_nodes ${sql.insert(rows.slice(start, start + 500))}`
          }
        }
        return interaction
      }).pipe(writesTogether, Effect.orDie)

    /** The interaction `id` of spec `specId` in `accountIds`, else 404. */
    const get = (specId: string, id: string, accountIds: ReadonlyArray<string>) =>
      Effect.flatMap(documents.findById(id, accountIds), (found) =>
        found._tag === "Some" && found.value.application_spec_id === specId
          ? Effect.succeed(found.value)
          : Effect.fail(new NotFound({ detail: `Application interaction ${id} not found` })))

    /** The interactions recorded for a spec, newest first. */
    const page = (specId: string, request: { accountIds: ReadonlyArray<string>; page: number; limit: number }) =>
      documents.page({ ...request, where: [sql`application_spec_id = ${specId}`] })

    /** The spans of each of `interactionIds`, in the order they ran. */
    const spansOf = (interactionIds: ReadonlyArray<string>) =>
      interactionIds.length === 0 ? Effect.succeed(new Map<string, Array<MessageSpan>>()) : Effect.map(
        Effect.orDie(sql<{ interaction_id: string; doc: string }>`
          SELECT interaction_id, doc FROM application_interaction_spans WHERE ${sql.in("interaction_id", interactionIds)}
          ORDER BY interaction_id, position`),
        (rows) => {
          const byInteraction = new Map<string, Array<MessageSpan>>()
          for (const row of rows) {
            const list = byInteraction.get(row.interaction_id) ?? []
            list.push(decodeSpan(JSON.parse(row.doc)))
            byInteraction.set(row.interaction_id, list)
          }
          return byInteraction
        }
      )

    /** The interactions of thread `threadId`, oldest first. */
    const ofThread = (threadId: string, accountIds: ReadonlyArray<string>) =>
      Effect.map(
        documents.findNarrowed(accountIds, [sql`chat_thread_id = ${threadId}`]),
        (found) => [...found].sort((a, b) => a.start_timestamp.localeCompare(b.start_timestamp) || a.created_at.localeCompare(b.created_at))
      )

    return { insert, get, page, spansOf, ofThread, findById: documents.findById, update: documents.update, transaction: documents.transaction } as const
  })
}) {}
