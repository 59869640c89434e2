/**
 * Document nodes (docs/applications.md "Document nodes"): application files given by the request
 * (`POST /v4/applications/upload-files`) read as documents, searched for a query, rendered into a
 * prompt, and completed one by one then combined (map-reduce). A document is `{id, file_name,
 * text}`: the file's id and name and its text as a knowledge base's upload reads a file
 * (knowledge-bases/uploads/extract.ts).
 */
import { Chunk } from "@platform-kit/schema"
import { Effect, Either } from "effect"
import { chunkCharacters } from "../../../knowledge-bases/uploads/chunking.js"
import { extractText } from "../../../knowledge-bases/uploads/extract.js"
import { cosine, embedVector } from "../../../models/inference/builtin.js"
import { render } from "../mustache.js"
import { complete, historyMessages, providerFor, templateOf } from "./completion.js"
import {
  asChunks,
  asText,
  ConfigurationProblem,
  input,
  InputProblem,
  isNonEmptyStrings,
  maxTokens,
  type NodeKind,
  number,
  optionalNumber,
  optionalText,
  output,
  temperature,
  text,
  topK
} from "./kit.js"

export interface Document {
  readonly id: string
  readonly file_name: string
  readonly text: string
}

const asDocuments = (value: unknown): ReadonlyArray<Document> => (Array.isArray(value) ? value as ReadonlyArray<Document> : [])

/** The most files one document input takes. */
const maxFiles = 100

/** The most bytes a document input's files may hold together (they are read whole, as text). */
const maxDocumentBytes = 16 * 1024 * 1024

export const documentInput: NodeKind = {
  id: "document_input_schema",
  type: "DOCUMENT_INPUT_NODE",
  operationType: "DOCUMENT_INPUT",
  name: "Document input",
  tags: ["INPUT_NODE"],
  configuration: { file_ids: text("Label", "What the input asks for (shown to a user)", false) },
  inputs: {},
  outputs: { documents: output("documents", "DOCUMENT_ARRAY", "The files given in the request's inputs as documents: {id, file_name, text}") },
  requestInput: {
    name: "file_ids",
    expected: `an array of 1 to ${maxFiles} application file ids (POST /v4/applications/upload-files)`,
    valid: (value) => isNonEmptyStrings(value) && value.length <= maxFiles
  },
  // every file read before anything runs, one after the other: another account's is a 404, one
  // that is not text a 422, and so is a file past `maxDocumentBytes` with those before it
  prepare: (_nodeId, _configuration, runtime, { given }) =>
    Effect.suspend(() => {
      let total = 0
      return Effect.map(
        Effect.forEach(given.file_ids as ReadonlyArray<string>, (id, i) =>
          Effect.flatMap(runtime.file(id), ({ bytes, file }) => {
            if ((total += bytes.length) > maxDocumentBytes) {
              return Effect.fail(new InputProblem(["file_ids", i], `The files of one document input hold at most ${maxDocumentBytes} bytes together`, id))
            }
            return Either.match(extractText(file.file_name, bytes), {
              onLeft: (why) => Effect.fail(new InputProblem(["file_ids", i], why, id)),
              onRight: (text) => Effect.succeed<Document>({ id: file.id, file_name: file.file_name, text })
            })
          })),
        (documents) => () => Effect.succeed({ outputs: { documents } })
      )
    })
}

const chunkSize = number("Chunk size", "The most characters of a chunk", { min: 1, max: 100_000, default: 1000 })
const chunkOverlap = number("Chunk overlap", "Characters a chunk shares with the one before", { min: 0, max: 99_999, default: 200 })

/** The words of a text, lower-cased, each once. */
const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])

/**
 * Search over documents, in memory (documents have no index): each cut into chunks as a
 * knowledge base's `character` chunking cuts a file, each chunk scored as a knowledge base's query
 * scores one: half the cosine of the built-in embeddings of the query and of the chunk (at least
 * 0), half the share of the query's words the chunk holds; the best `top_k`, best first.
 */
export const documentSearch: NodeKind = {
  id: "document_search_schema",
  type: "DOCUMENT_SEARCH_NODE",
  operationType: "DOCUMENT_SEARCH",
  name: "Document search",
  tags: ["RAG_NODE"],
  configuration: { top_k: topK, chunk_size: chunkSize, chunk_overlap: chunkOverlap },
  inputs: {
    documents: input("documents", "DOCUMENT_ARRAY", "The documents to search"),
    query: input("query", "TEXT", "What to find")
  },
  outputs: { chunks: output("chunks", "CHUNK_ARRAY", "The best chunks of the documents, best first") },
  prepare: (nodeId, configuration) =>
    Effect.gen(function*() {
      const k = (yield* optionalNumber(nodeId, configuration, "top_k", topK))!
      const size = (yield* optionalNumber(nodeId, configuration, "chunk_size", chunkSize))!
      const overlap = (yield* optionalNumber(nodeId, configuration, "chunk_overlap", chunkOverlap))!
      if (overlap >= size) {
        return yield* Effect.fail(new ConfigurationProblem(`Node '${nodeId}': configuration 'chunk_overlap' must be less than 'chunk_size' (${size})`))
      }
      return (inputs) =>
        Effect.sync(() => {
          const query = asText(inputs.query)
          const queryVector = embedVector(query)
          const queryWords = [...wordsOf(query)]
          const scored = asDocuments(inputs.documents).flatMap((document) =>
            chunkCharacters(document.text, { chunk_size: size, chunk_overlap: overlap }).map((text, position) => {
              const words = wordsOf(text)
              const lexical = queryWords.length === 0 ? 0 : queryWords.filter((word) => words.has(word)).length / queryWords.length
              const score = 0.5 * Math.max(0, cosine(queryVector, embedVector(text))) + 0.5 * lexical
              return new Chunk({
                chunk_id: `${document.id}:${position}`,
                score,
                text,
                metadata: { file_id: document.id, file_name: document.file_name, chunk_position: position },
                title: document.file_name,
                attachment_url: null,
                user_supplied_metadata: null,
                embedding: null
              }, true)
            })
          )
          return { outputs: { chunks: scored.sort((a, b) => b.score - a.score).slice(0, k) } }
        })
    })
}

export const documentPrompt: NodeKind = {
  id: "document_prompt_schema",
  type: "DOCUMENT_PROMPT_NODE",
  operationType: "DOCUMENT_PROMPT",
  name: "Document prompt",
  tags: [],
  configuration: {
    prompt_template: text(
      "Prompt template",
      "A Mustache template over the inputs: {{query}}, {{#documents}}{{file_name}}: {{text}}{{/documents}}",
      true
    )
  },
  inputs: {
    documents: input("documents", "DOCUMENT_ARRAY", "The documents the prompt is over"),
    query: input("query", "TEXT", "The question", false)
  },
  outputs: { prompt: output("prompt", "TEXT", "The rendered prompt") },
  prepare: (nodeId, configuration) =>
    Effect.map(templateOf(nodeId, configuration, "prompt_template"), (template) => (inputs) =>
      Effect.succeed({ outputs: { prompt: render(template, { ...inputs }) } }))
}

/**
 * Map-reduce: one completion per document or chunk (`map_template` over `{query, text, title,
 * index}`, four at a time, without the history), then one completion combining their answers
 * (`reduce_template` over `{query, results}`, after the history; streamed when the request
 * streams). Its tokens are all the completions'.
 */
export const mapReduce: NodeKind = {
  id: "map_reduce_schema",
  type: "MAP_REDUCE_NODE",
  operationType: "MAP_REDUCE",
  name: "Map-reduce",
  tags: [],
  configuration: {
    completion_model_id: text(
      "Model",
      "A model deployment id, a model server alias, a model's id or name, or builtin; required unless the completion_model_id input is connected",
      false
    ),
    map_template: text("Map template", "A Mustache template for each item: {{query}}, {{text}}, {{title}}, {{index}}", true),
    reduce_template: text("Reduce template", "A Mustache template over the answers: {{query}}, {{#results}}{{.}}{{/results}}", true),
    temperature,
    max_tokens: maxTokens
  },
  inputs: {
    documents: input("documents", "DOCUMENT_ARRAY", "Documents, each completed on its own", false),
    chunks: input("chunks", "CHUNK_ARRAY", "Chunks, each completed on its own", false),
    query: input("query", "TEXT", "The question", false),
    completion_model_id: input("completion_model_id", "COMPLETION_MODEL_ID", "The model, in place of the configuration's", false)
  },
  outputs: {
    completion: output("completion", "TEXT", "The combining completion's answer"),
    results: output("results", "STRING_ARRAY", "Each item's answer, in order")
  },
  orWired: { completion_model_id: "completion_model_id" },
  prepare: (nodeId, configuration, runtime, { wired }) =>
    Effect.gen(function*() {
      if (!wired.has("documents") && !wired.has("chunks")) {
        return yield* Effect.fail(new ConfigurationProblem(`Node '${nodeId}': its input 'documents' or 'chunks' must be connected`))
      }
      const mapTemplate = yield* templateOf(nodeId, configuration, "map_template")
      const reduceTemplate = yield* templateOf(nodeId, configuration, "reduce_template")
      const options = {
        temperature: yield* optionalNumber(nodeId, configuration, "temperature", temperature),
        max_tokens: yield* optionalNumber(nodeId, configuration, "max_tokens", maxTokens)
      }
      const modelId = optionalText(configuration, "completion_model_id")
      const configured = modelId === undefined ? undefined : yield* runtime.model(modelId)
      const before = historyMessages(runtime)
      return (inputs) =>
        Effect.gen(function*() {
          const provider = yield* providerFor(runtime, configured, inputs.completion_model_id)
          const query = asText(inputs.query)
          const items = [
            ...asDocuments(inputs.documents).map((document) => ({ text: document.text, title: document.file_name })),
            ...asChunks(inputs.chunks).map((chunk) => ({ text: chunk.text, title: chunk.title }))
          ]
          const mapped = yield* Effect.forEach(
            items,
            (item, index) =>
              complete(provider, [{ role: "user", content: render(mapTemplate, { query, ...item, index }) }], options, nodeId, undefined),
            { concurrency: 4 }
          )
          const results = mapped.map((answer) => answer.text)
          const reduced = yield* complete(
            provider,
            [...before, { role: "user", content: render(reduceTemplate, { query, results }) }],
            options,
            nodeId,
            runtime.onText
          )
          return {
            outputs: { completion: reduced.text, results },
            input_tokens: mapped.reduce((sum, answer) => sum + answer.input_tokens, reduced.input_tokens),
            output_tokens: mapped.reduce((sum, answer) => sum + answer.output_tokens, reduced.output_tokens)
          }
        })
    })
}
