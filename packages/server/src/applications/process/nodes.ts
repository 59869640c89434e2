/**
 * The node kinds the kit runs (docs/applications.md "Processing"): for each, what
 * `GET /v4/application-schemas` says of it (configuration fields, inputs, outputs, tags) and how it
 * runs. The executor (process.ts) and the registry endpoint read this one list; the kinds are in
 * nodes/, by group, and what they share in nodes/kit.ts.
 *
 * A node's configuration is `{field: {value: …}}`; `prepare` checks it and what it names (a
 * knowledge base, a model, a file, a host) before any node runs, and answers the node's step.
 */
import { completionModel, completionModelInput, promptEngineering } from "./nodes/completion.js"
import { documentInput, documentPrompt, documentSearch, mapReduce } from "./nodes/documents.js"
import { externalEndpoint } from "./nodes/external.js"
import type { NodeKind } from "./nodes/kit.js"
import { knowledgeBase, knowledgeBaseInput, multiKnowledgeBase, multiKnowledgeBaseInput, reranker } from "./nodes/retrieval.js"
import { textInput, textOutput } from "./nodes/text.js"

export * from "./nodes/kit.js"

/** Every kind the kit runs, by `application_node_schema_id`, in the platform's order. */
export const nodeKinds: ReadonlyMap<string, NodeKind> = new Map(
  [
    textInput,
    textOutput,
    knowledgeBaseInput,
    knowledgeBase,
    multiKnowledgeBaseInput,
    multiKnowledgeBase,
    reranker,
    promptEngineering,
    completionModelInput,
    completionModel,
    externalEndpoint,
    documentInput,
    mapReduce,
    documentSearch,
    documentPrompt
  ].map((kind) => [kind.id, kind])
)
