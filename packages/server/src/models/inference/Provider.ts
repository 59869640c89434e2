/**
 * What runs a deployment's model (docs/models.md "Providers"): the built-in model or an
 * OpenAI-compatible upstream. The endpoints speak to a `Provider`; `ModelProviders` finds the one
 * of a deployment (a Layer, so an embedding program or a test can give its own).
 */
import type { UpstreamError } from "@platform-kit/schema"
import type { Effect } from "effect"

export interface Message {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/** The generation settings the endpoints take, by their API names. */
export interface GenerationOptions {
  readonly max_tokens?: number | undefined
  readonly temperature?: number | undefined
  readonly top_p?: number | undefined
  readonly frequency_penalty?: number | undefined
  readonly presence_penalty?: number | undefined
  readonly stop?: ReadonlyArray<string> | undefined
}

export interface Generation {
  readonly text: string
  readonly finish_reason: string
  readonly prompt_tokens: number
  readonly response_tokens: number
}

export interface Embeddings {
  readonly vectors: ReadonlyArray<ReadonlyArray<number>>
  readonly tokens: number
}

export interface Provider {
  readonly chat: (messages: ReadonlyArray<Message>, options: GenerationOptions) => Effect.Effect<Generation, UpstreamError>
  readonly complete: (prompt: string, options: GenerationOptions) => Effect.Effect<Generation, UpstreamError>
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<Embeddings, UpstreamError>
}
