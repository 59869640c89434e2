import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const kb = yield* platform.knowledgeBases.create({
    payload: { knowledge_base_name: "harbor", embedding_config: { type: "base" }, account_id }
  })
  const path = { knowledge_base_id: kb.knowledge_base_id }
  const texts = ["The harbor opens at dawn.", "Copper lanterns line the pier."]
  const { upload_id } = yield* platform.knowledgeBaseUploads.create({
    path,
    payload: {
      data_source_config: {
        source: "LocalChunks", artifact_name: "faq.md", artifact_uri: "local://faq", deduplication_strategy: "Overwrite"
      },
      chunks: texts.map((text, chunk_position) => ({ chunk_position, text }))
    }
  })
  const upload = yield* platform.knowledgeBaseUploads.get({ path: { ...path, upload_id }, urlParams: { include_artifact_list: true } }).pipe(
    Effect.delay("500 millis"),
    Effect.repeat({ until: (upload) => upload.status !== "Running" })
  )
  const found = yield* platform.knowledgeBases.query({ path, payload: { query: "When does the harbor open?", top_k: 1 } })
  // a chunk written by hand into the upload's artifact: embedded and searchable once the call returns
  yield* platform.knowledgeBases.createArtifactChunk({
    path: { ...path, artifact_id: upload.artifacts[0]!.artifact_id },
    payload: { chunk_position: 2, text: "Ferries leave every hour." }
  })
  const ferries = yield* platform.knowledgeBases.query({ path, payload: { query: "How often do ferries leave?", top_k: 1 } })
  yield* Console.log(upload.status, found.chunks[0]?.text, ferries.chunks[0]?.text)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
