/**
 * Retrieval nodes: knowledge-base ids given by the request, one knowledge base's query, several
 * merged by score, and the reranker.
 */
import type { Chunk } from "@platform-kit/schema"
import { Effect } from "effect"
import { cosine, embedVector } from "../../../models/inference/builtin.js"
import {
  asChunks,
  asStrings,
  asText,
  configValue,
  ConfigurationProblem,
  input,
  isNonEmptyString,
  isNonEmptyStrings,
  type NodeKind,
  optionalNumber,
  optionalText,
  output,
  text,
  topK
} from "./kit.js"

export const knowledgeBaseInput: NodeKind = {
  id: "knowledge_base_input_schema",
  type: "KNOWLEDGE_BASE_INPUT_NODE",
  operationType: "KB_INPUT",
  name: "Knowledge base input",
  tags: ["INPUT_NODE"],
  configuration: { knowledge_base_id: text("Label", "What the input asks for (shown to a user)", false) },
  inputs: {},
  outputs: {
    knowledge_base_id: output("knowledge_base_id", "KNOWLEDGE_BASE_ID", "The knowledge base id given in the request's inputs under this node's id")
  },
  requestInput: { name: "knowledge_base_id", expected: "a knowledge base id", valid: isNonEmptyString },
  // the knowledge base must be the account's before anything runs
  prepare: (_nodeId, _configuration, runtime, { given }) =>
    Effect.as(
      runtime.knowledgeBase(given.knowledge_base_id as string),
      (inputs) => Effect.succeed({ outputs: { knowledge_base_id: inputs.knowledge_base_id } })
    )
}

export const multiKnowledgeBaseInput: NodeKind = {
  id: "multi_knowledge_base_input_schema",
  type: "MULTI_KNOWLEDGE_BASE_INPUT_NODE",
  operationType: "KB_INPUT",
  name: "Knowledge bases input",
  tags: ["INPUT_NODE"],
  configuration: { knowledge_base_ids: text("Label", "What the input asks for (shown to a user)", false) },
  inputs: {},
  outputs: {
    knowledge_base_ids: output("knowledge_base_ids", "KNOWLEDGE_BASE_ID_ARRAY", "The knowledge base ids given in the request's inputs under this node's id")
  },
  requestInput: { name: "knowledge_base_ids", expected: "a non-empty array of knowledge base ids", valid: isNonEmptyStrings },
  prepare: (_nodeId, _configuration, runtime, { given }) =>
    Effect.as(
      Effect.forEach(given.knowledge_base_ids as ReadonlyArray<string>, runtime.knowledgeBase, { discard: true }),
      (inputs) => Effect.succeed({ outputs: { knowledge_base_ids: inputs.knowledge_base_ids } })
    )
}

export const knowledgeBase: NodeKind = {
  id: "knowledge_base_schema",
  type: "KNOWLEDGE_BASE_NODE",
  operationType: "KB_RETRIEVAL",
  name: "Knowledge base",
  tags: ["RAG_NODE"],
  configuration: {
    kb_id: text("Knowledge base", "The id of a knowledge base of the account; required unless the knowledge_base_id input is connected", false),
    top_k: topK
  },
  inputs: {
    query: input("query", "TEXT", "What to retrieve chunks for"),
    knowledge_base_id: input("knowledge_base_id", "KNOWLEDGE_BASE_ID", "The knowledge base, in place of kb_id (a knowledge base input node's)", false)
  },
  outputs: { chunks: output("chunks", "CHUNK_ARRAY", "The best chunks, best first") },
  orWired: { kb_id: "knowledge_base_id" },
  prepare: (nodeId, configuration, runtime) =>
    Effect.gen(function*() {
      const configured = optionalText(configuration, "kb_id")
      const k = (yield* optionalNumber(nodeId, configuration, "top_k", topK))!
      if (configured !== undefined) yield* runtime.knowledgeBase(configured)
      const overrides = runtime.overrides[nodeId]
      return (inputs) => {
        const kbId = isNonEmptyString(inputs.knowledge_base_id) ? inputs.knowledge_base_id : configured!
        return Effect.map(runtime.retrieve(kbId, asText(inputs.query), k, overrides), (chunks) => ({ outputs: { chunks } }))
      }
    })
}

/** The ids of a `knowledge_base_ids` configuration: comma-separated, blanks dropped. */
const idsOf = (value: unknown) =>
  typeof value === "string" ? value.split(",").map((id) => id.trim()).filter((id) => id.length > 0) : []

/**
 * Retrieval over several knowledge bases: each one's query (as the knowledge base node's, the
 * node's `overrides` narrowing each), merged best first by score, the first `top_k` kept; each
 * chunk's metadata says its `knowledge_base_id`.
 */
export const multiKnowledgeBase: NodeKind = {
  id: "multi_knowledge_base_schema",
  type: "MULTI_KNOWLEDGE_BASE_NODE",
  operationType: "KB_RETRIEVAL",
  name: "Knowledge bases",
  tags: ["RAG_NODE"],
  configuration: {
    knowledge_base_ids: text(
      "Knowledge bases",
      "Knowledge base ids of the account, comma-separated; required unless the knowledge_base_ids input is connected",
      false
    ),
    top_k: topK
  },
  inputs: {
    query: input("query", "TEXT", "What to retrieve chunks for"),
    knowledge_base_ids: input("knowledge_base_ids", "KNOWLEDGE_BASE_ID_ARRAY", "The knowledge bases, in place of the configuration's", false)
  },
  outputs: { chunks: output("chunks", "CHUNK_ARRAY", "The best chunks of them all, best first") },
  orWired: { knowledge_base_ids: "knowledge_base_ids" },
  prepare: (nodeId, configuration, runtime, { wired }) =>
    Effect.gen(function*() {
      const configured = idsOf(configValue(configuration, "knowledge_base_ids"))
      if (configured.length === 0 && !wired.has("knowledge_base_ids")) {
        return yield* Effect.fail(
          new ConfigurationProblem(`Node '${nodeId}': configuration 'knowledge_base_ids' must name at least one knowledge base`)
        )
      }
      const k = (yield* optionalNumber(nodeId, configuration, "top_k", topK))!
      yield* Effect.forEach(configured, runtime.knowledgeBase, { discard: true })
      const overrides = runtime.overrides[nodeId]
      return (inputs) => {
        const given = asStrings(inputs.knowledge_base_ids)
        const ids = [...new Set(given.length > 0 ? given : configured)]
        return Effect.map(
          Effect.forEach(ids, (id) =>
            Effect.map(runtime.retrieve(id, asText(inputs.query), k, overrides), (chunks) =>
              chunks.map((chunk): Chunk => ({ ...chunk, metadata: { ...chunk.metadata, knowledge_base_id: id } }) as Chunk))),
          (found) => ({ outputs: { chunks: found.flat().sort((a, b) => b.score - a.score).slice(0, k) } })
        )
      }
    })
}

/**
 * The built-in reranker: each chunk scored by the cosine of the built-in embeddings of the prompt
 * and of its text (deterministic); a reranking model's own embeddings when the node names one.
 */
export const reranker: NodeKind = {
  id: "reranker_schema",
  type: "RERANKER_NODE",
  operationType: "RERANKING",
  name: "Reranker",
  tags: ["RAG_NODE"],
  configuration: {
    reranking_model_id: text("Reranking model", "A model (deployment id, alias, name); the built-in reranker when left out", false),
    top_k: topK
  },
  inputs: { chunks: input("chunks", "CHUNK_ARRAY", "The chunks to order"), prompt: input("prompt", "TEXT", "What they are ordered for") },
  outputs: { chunks: output("chunks", "CHUNK_ARRAY", "The best chunks, best first") },
  prepare: (nodeId, configuration, runtime) =>
    Effect.gen(function*() {
      const k = (yield* optionalNumber(nodeId, configuration, "top_k", topK))!
      const modelId = optionalText(configuration, "reranking_model_id")
      const provider = modelId !== undefined ? yield* runtime.model(modelId) : undefined
      return (inputs) =>
        Effect.gen(function*() {
          const chunks = asChunks(inputs.chunks)
          const prompt = asText(inputs.prompt)
          const scores = provider === undefined
            ? chunks.map((chunk) => cosine(embedVector(prompt), embedVector(chunk.text)))
            : yield* Effect.map(provider.embed([prompt, ...chunks.map((chunk) => chunk.text)]), ({ vectors }) =>
              vectors.slice(1).map((vector) => cosine(vectors[0]!, vector)))
          const ranked = chunks.map((chunk, i) => ({ chunk, score: scores[i]! }))
            .sort((a, b) => b.score - a.score)
            .slice(0, k)
            .map(({ chunk, score }) => ({ ...chunk, score }))
          return { outputs: { chunks: ranked } }
        })
    })
}
