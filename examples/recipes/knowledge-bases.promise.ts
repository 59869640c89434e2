import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
const kb = await platform.knowledgeBases.create({
  payload: { knowledge_base_name: "harbor", embedding_config: { type: "base" }, account_id }
})
const path = { knowledge_base_id: kb.knowledge_base_id }
const texts = ["The harbor opens at dawn.", "Copper lanterns line the pier."]
const { upload_id } = await platform.knowledgeBaseUploads.create({
  path,
  payload: {
    data_source_config: {
      source: "LocalChunks", artifact_name: "faq.md", artifact_uri: "local://faq", deduplication_strategy: "Overwrite"
    },
    chunks: texts.map((text, chunk_position) => ({ chunk_position, text }))
  }
})
const urlParams = { include_artifact_list: true }
let upload = await platform.knowledgeBaseUploads.get({ path: { ...path, upload_id }, urlParams })
while (upload.status === "Running") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  upload = await platform.knowledgeBaseUploads.get({ path: { ...path, upload_id }, urlParams })
}
const found = await platform.knowledgeBases.query({ path, payload: { query: "When does the harbor open?", top_k: 1 } })
// a chunk written by hand into the upload's artifact: embedded and searchable once the call returns
const artifact_id = upload.artifacts[0]!.artifact_id
await platform.knowledgeBases.createArtifactChunk({
  path: { ...path, artifact_id },
  payload: { chunk_position: 2, text: "Ferries leave every hour." }
})
const ferries = await platform.knowledgeBases.query({ path, payload: { query: "How often do ferries leave?", top_k: 1 } })
console.log(upload.status, found.chunks[0]?.text, ferries.chunks[0]?.text)
await platform.close()
