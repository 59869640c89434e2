/** Fixtures of the evaluations tests: dataset rows written straight into `evaluation_datasets`. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Crypto from "node:crypto"

/** The fields of a chat-completion configuration a task may leave out (`null` when it does). */
export const optionalConfigurationFields = [
  "messages",
  "top_k",
  "frequency_penalty",
  "presence_penalty",
  "temperature",
  "top_p",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "n",
  "seed",
  "top_logprobs",
  "metadata",
  "modalities",
  "parallel_tool_calls",
  "prediction",
  "reasoning_effort",
  "response_format",
  "stop",
  "store",
  "tool_choice",
  "tools",
  "audio"
] as const

/** A configuration with only `model`, as answered: every other field `null`. */
export const modelOnly = (model: string) => ({
  model,
  ...Object.fromEntries(optionalConfigurationFields.map((field) => [field, null]))
})

/** A configuration with every field set. */
export const fullConfiguration = {
  model: "gpt-4o",
  messages: [{ role: "system", content: "be brief" }, { role: "user", content: "{{input}}" }],
  top_k: 40,
  frequency_penalty: 0.5,
  presence_penalty: -0.5,
  temperature: 0.7,
  top_p: 0.9,
  function_call: { name: "lookup" },
  functions: [{ name: "lookup", parameters: { type: "object" } }],
  logit_bias: { "50256": -100 },
  logprobs: true,
  max_completion_tokens: 512,
  max_tokens: 256,
  n: 2,
  seed: -7,
  top_logprobs: 3,
  metadata: { run: "nightly" },
  modalities: ["text", "audio"],
  parallel_tool_calls: false,
  prediction: { type: "content", content: "hello" },
  reasoning_effort: "low",
  response_format: { type: "json_object" },
  stop: "\n\n",
  store: true,
  tool_choice: "auto",
  tools: [{ type: "function", function: { name: "lookup" } }],
  audio: { voice: "alloy", format: "wav" }
}

/**
 * Writes an evaluation dataset row the way the evaluation-datasets family stores one (its wire
 * JSON in `doc`), with `doc` overriding any member; answers the doc.
 */
export const insertDataset = (accountId: string, doc: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = Crypto.randomUUID()
    const full = {
      id,
      name: "golden set",
      description: null,
      schema_type: "GENERATION",
      knowledge_base_id: null,
      account_id: accountId,
      created_by_user_id: "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d",
      created_by_identity_type: "service_account",
      created_at: "2026-01-02T03:04:05.000Z",
      updated_at: "2026-01-02T03:04:05.000Z",
      archived_at: null,
      ...doc
    }
    yield* sql`INSERT INTO evaluation_datasets ${
      sql.insert({ id, account_id: accountId, created_at: full.created_at, doc: JSON.stringify(full) })
    }`
    return full
  }).pipe(Effect.orDie)

/** Changes members of a stored dataset's doc (what a later update of the dataset would do). */
export const updateDataset = (id: string, changes: Record<string, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ doc: string }>`SELECT doc FROM evaluation_datasets WHERE id = ${id}`
    const doc = { ...JSON.parse(rows[0]!.doc), ...changes }
    yield* sql`UPDATE evaluation_datasets SET doc = ${JSON.stringify(doc)} WHERE id = ${id}`
  }).pipe(Effect.orDie)
