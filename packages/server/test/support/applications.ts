/** Stored application variants, what application deployments serve and processes run, and the knowledge bases they read. */
import { assert } from "@effect/vitest"
import type { Client } from "@platform-kit/client"
import type { ApplicationEdge, ApplicationNode } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { eventually, request } from "../../src/testing.js"
import type { Caller } from "./models.js"

/** A graph node of `kind`, its configuration's values wrapped as the platform takes them (`{"value": …}`). */
export const node = (id: string, kind: string, configuration: Record<string, unknown> = {}) => ({
  id,
  application_node_schema_id: kind,
  configuration: Object.fromEntries(Object.entries(configuration).map(([key, value]) => [key, { value }]))
})

/** An edge from `"node.field"` to `"node.field"`. */
export const edge = (from: string, to: string) => {
  const [from_node, from_field] = from.split(".")
  const [to_node, to_field] = to.split(".")
  return { from_node: from_node!, from_field: from_field!, to_node: to_node!, to_field: to_field! }
}

/** The SDK's completion app (input → completion → output) on `model`. */
export const completionApp = (model = "builtin") => ({
  nodes: [
    { id: "input_node", application_node_schema_id: "text_input_schema" as const },
    { id: "completion_node", application_node_schema_id: "completion_model_schema" as const, configuration: { completion_model_id: { value: model } } },
    { id: "output_node", application_node_schema_id: "text_output_schema" as const }
  ],
  edges: [
    { from_node: "input_node", from_field: "input-text", to_node: "completion_node", to_field: "prompt" },
    { from_node: "completion_node", from_field: "completion", to_node: "output_node", to_field: "output-text" }
  ]
})

/** A spec of `account_id` and a V0 variant of it (the completion app on the built-in model): their ids. */
export const storedVariant = (client: Client, account_id: string) =>
  Effect.gen(function*() {
    const spec = yield* client.applicationSpecs.create({ payload: { account_id, name: "app", description: "an app" } })
    const variant = yield* client.applicationVariants.create({
      payload: { account_id, application_spec_id: spec.id, name: "v0", version: "V0", configuration: completionApp() }
    })
    return { spec: spec.id, variant: variant.id }
  })

/** A spec of `caller`'s account and a V0 variant of it with `configuration`: their ids. */
export const variantOf = (
  caller: Caller,
  configuration: { readonly nodes: ReadonlyArray<ApplicationNode>; readonly edges: ReadonlyArray<ApplicationEdge> }
) =>
  Effect.gen(function*() {
    const spec = yield* caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name: "app", description: "an app" } })
    const variant = yield* caller.client.applicationVariants.create({
      payload: { account_id: caller.accountId, application_spec_id: spec.id, name: "v", version: "V0", configuration }
    })
    return { spec: spec.id, variant: variant.id }
  })

/** A knowledge base of `caller` holding `texts` (one chunk each, written by hand), ingested: its id. */
export const knowledgeBaseOf = (caller: Caller, texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const kb = yield* caller.client.knowledgeBases.create({ payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } } })
    const posted = yield* request("POST", `/v4/knowledge-bases/${kb.knowledge_base_id}/uploads`, {
      key: caller.key,
      body: {
        data_source_config: { source: "LocalChunks", artifact_name: "faq.txt", artifact_uri: "local://faq" },
        chunks: texts.map((text, chunk_position) => ({ chunk_position, text }))
      }
    })
    assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
    const done = yield* eventually(
      Effect.map(
        caller.client.knowledgeBaseUploads.get({ path: { knowledge_base_id: kb.knowledge_base_id, upload_id: posted.body.upload_id }, urlParams: {} }),
        (upload) => (upload.status === "Completed" ? Option.some(upload) : Option.none())
      )
    )
    assert.isTrue(Option.isSome(done))
    return kb.knowledge_base_id
  })
