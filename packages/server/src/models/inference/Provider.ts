/**
 * What runs a deployment's model (docs/models.md "Providers"): the built-in model or an
 * OpenAI-compatible upstream. The endpoints speak to a `Provider`; `ModelProviders` finds the one
 * of a deployment (a Layer, so an embedding program or a test can give its own).
 */
import type { UpstreamError } from "@platform-kit/schema"
import type { Effect, Stream } from "effect"

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
  /** Passed to an upstream that takes them (vLLM and others; OpenAI refuses `top_k`: its 400 is passed on). */
  readonly top_k?: number | undefined
  readonly chat_template?: string | undefined
  readonly chat_template_kwargs?: Readonly<Record<string, unknown>> | undefined
  /** Ask for each generated token's log probability, with this many alternatives (`top_logprobs`). */
  readonly logprobs?: boolean | undefined
  readonly top_logprobs?: number | undefined
}

/** One generated token's log probability and its most likely alternatives (the SDK's `choices[].logprobs.content[]`). */
export interface TokenLogprob {
  readonly token: string
  readonly logprob: number
  readonly top_logprobs: ReadonlyArray<{ readonly token: string; readonly logprob: number }>
}

export interface Generation {
  readonly text: string
  readonly finish_reason: string
  readonly prompt_tokens: number
  readonly response_tokens: number
  /** When the request asked for `logprobs` (and the provider gave them). */
  readonly logprobs?: ReadonlyArray<TokenLogprob> | undefined
}

/**
 * What a streamed generation yields: pieces of text as they come, then one `Finish` (why it
 * stopped, and the tokens counted).
 */
export type GenerationEvent =
  | { readonly _tag: "Text"; readonly text: string }
  | {
    readonly _tag: "Finish"
    readonly finish_reason: string
    readonly prompt_tokens: number
    readonly response_tokens: number
  }

/**
 * A streamed generation: the effect fails when the upstream refuses before it starts (so the
 * endpoint can still answer an error status); the stream fails when it breaks off after that.
 */
export type GenerationStream = Effect.Effect<Stream.Stream<GenerationEvent, UpstreamError>, UpstreamError>

export interface Embeddings {
  readonly vectors: ReadonlyArray<ReadonlyArray<number>>
  readonly tokens: number
}

export interface Provider {
  readonly chat: (messages: ReadonlyArray<Message>, options: GenerationOptions) => Effect.Effect<Generation, UpstreamError>
  readonly complete: (prompt: string, options: GenerationOptions) => Effect.Effect<Generation, UpstreamError>
  readonly chatStream: (messages: ReadonlyArray<Message>, options: GenerationOptions) => GenerationStream
  readonly completeStream: (prompt: string, options: GenerationOptions) => GenerationStream
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<Embeddings, UpstreamError>
}
