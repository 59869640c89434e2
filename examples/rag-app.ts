/**
 * Example 6: a RAG application (docs/applications.md "Processing"): a knowledge base of chunks
 * written by hand, an application spec, a V0 variant whose graph retrieves chunks for the question,
 * renders them into a prompt and completes it on the built-in model, then one question processed
 * through it: the answer printed with the chunks it was given. Uses the Promise client.
 *
 *   PLATFORM_BASE_URL=http://127.0.0.1:8080 PLATFORM_API_KEY=pk_... PLATFORM_ACCOUNT_ID=... \
 *     npx tsx examples/rag-app.ts
 */
import { makePromiseClient } from "@platform-kit/client"

// base URL, key and account from PLATFORM_BASE_URL, PLATFORM_API_KEY, PLATFORM_ACCOUNT_ID
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
try {
  // 1. the knowledge base: chunks written by hand into one artifact, embedded by the kit
  const kb = await platform.knowledgeBases.create({
    payload: { knowledge_base_name: "harbor guide", embedding_config: { type: "base" }, account_id }
  })
  const path = { knowledge_base_id: kb.knowledge_base_id }
  const texts = [
    "The harbor office opens at seven in the morning and closes at six in the evening.",
    "Ferries to the islands leave every hour from pier two.",
    "Parking by the lighthouse is free for visitors on weekends.",
    "The fish market on the east quay sells the morning catch until noon."
  ]
  const { upload_id } = await platform.knowledgeBaseUploads.create({
    path,
    payload: {
      data_source_config: {
        source: "LocalChunks", artifact_name: "guide.txt", artifact_uri: "local://harbor/guide", deduplication_strategy: "Overwrite"
      },
      chunks: texts.map((text, chunk_position) => ({ chunk_position, text }))
    }
  })
  let upload = await platform.knowledgeBaseUploads.get({ path: { ...path, upload_id }, urlParams: {} })
  while (upload.status === "Running") {
    await new Promise((resolve) => setTimeout(resolve, 200))
    upload = await platform.knowledgeBaseUploads.get({ path: { ...path, upload_id }, urlParams: {} })
  }
  if (upload.status !== "Completed") throw new Error(`the upload ended ${upload.status}`)

  // 2. the spec, and its variant: input → knowledge base → prompt → completion → output
  const spec = await platform.applicationSpecs.create({
    payload: { name: "harbor assistant", description: "answers visitors from the harbor guide", account_id }
  })
  const node = (id: string, application_node_schema_id: string, configuration: Record<string, unknown> = {}) => ({
    id,
    application_node_schema_id,
    configuration: Object.fromEntries(Object.entries(configuration).map(([field, value]) => [field, { value }]))
  })
  const edge = (from_node: string, from_field: string, to_node: string, to_field: string) => ({ from_node, from_field, to_node, to_field })
  const variant = await platform.applicationVariants.create({
    payload: {
      name: "rag v0",
      version: "V0",
      application_spec_id: spec.id,
      account_id,
      configuration: {
        nodes: [
          node("question", "text_input_schema"),
          node("retrieval", "knowledge_base_schema", { kb_id: kb.knowledge_base_id, top_k: 2 }),
          node("prompt", "prompt_engineering_schema", {
            prompt_template: "Answer the question \"{{query}}\" using only these passages:{{#chunks}}\n- {{text}}{{/chunks}}"
          }),
          // `builtin`: the kit's own model, which echoes its prompt; a deployment id or alias runs a real one
          node("completion", "completion_model_schema", { completion_model_id: "builtin" }),
          node("answer", "text_output_schema")
        ],
        edges: [
          edge("question", "input-text", "retrieval", "query"),
          edge("question", "input-text", "prompt", "query"),
          edge("retrieval", "chunks", "prompt", "chunks"),
          edge("prompt", "prompt", "completion", "prompt"),
          edge("completion", "completion", "answer", "output-text"),
          // the chunks retrieved travel with the answer
          edge("retrieval", "chunks", "answer", "metadata")
        ]
      }
    }
  })

  // 3. a question processed through the variant (recorded as an interaction of the spec)
  const result = await platform.applications.process({
    path: { application_variant_id: variant.id },
    payload: { inputs: { question: { "input-text": "When do the ferries leave?" } } }
  })
  const chunks = result.metadata as ReadonlyArray<{ readonly text: string; readonly score?: number }>
  console.log(`Answer:\n${String(result["output-text"])}\n`)
  console.log("Chunks:")
  for (const chunk of chunks) console.log(`- ${chunk.text}`)
  console.log(JSON.stringify({
    spec: spec.id,
    variant: variant.id,
    interaction: result.application_interaction_id,
    answer: result["output-text"],
    chunks: chunks.map((chunk) => chunk.text)
  }))
} finally {
  await platform.close()
}
