/**
 * The OpenAI-style front door for inference (docs/inference-v5.md): `/v5/chat/completions` (and its
 * model catalogue), `/v5/completions`, `/v5/responses`, `/v5/inference`, and v4's
 * `/v4/beta/completions` and `/v4/beta/chat/completions`. Bodies as OpenAI's (and the platform's
 * SDKs) send them; answers as OpenAI's, each field present (`null` when it has no value).
 */
import { Schema } from "effect"
import { JsonObject, NonEmptyString, Nullable, Optional } from "./common.js"
import { InferenceModelVendor } from "./inference-models.js"

const Temperature = Schema.Number.pipe(Schema.between(0, 2))
const PositiveInt = Schema.Int.pipe(Schema.positive())
/** `n`: the kit generates one choice a request (docs/inference-v5.md "Decisions"). */
const OneChoice = Schema.Int.pipe(Schema.between(1, 1, { message: () => "Only n = 1 is supported" }))
/** `stop`: one sequence or up to four. */
const Stop = Schema.Union(Schema.String, Schema.Array(Schema.String).pipe(Schema.maxItems(4)))

// ---------------------------------------------------------------------------------------------
// Requests

/** `POST /v5/chat/completions` and `/v4/beta/chat/completions`: OpenAI's chat body (messages untyped objects). */
export const OpenAiChatCompletionRequest = Schema.Struct({
  messages: Schema.Array(JsonObject).pipe(Schema.minItems(1)),
  model: NonEmptyString,
  stream: Optional(Schema.Boolean),
  audio: Optional(JsonObject),
  function_call: Optional(Schema.Union(Schema.String, JsonObject)),
  prediction: Optional(JsonObject),
  response_format: Optional(JsonObject),
  stream_options: Optional(JsonObject),
  functions: Optional(Schema.Array(JsonObject)),
  tools: Optional(Schema.Array(JsonObject)),
  frequency_penalty: Optional(Schema.Number.pipe(Schema.between(-2, 2))),
  presence_penalty: Optional(Schema.Number.pipe(Schema.between(-2, 2))),
  temperature: Optional(Temperature),
  top_p: Optional(Schema.Number.pipe(Schema.between(0, 1))),
  logit_bias: Optional(Schema.Record({ key: Schema.String, value: Schema.Number })),
  logprobs: Optional(Schema.Boolean),
  parallel_tool_calls: Optional(Schema.Boolean),
  store: Optional(Schema.Boolean),
  max_completion_tokens: Optional(PositiveInt),
  max_tokens: Optional(PositiveInt),
  n: Optional(OneChoice),
  seed: Optional(Schema.Int),
  top_k: Optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
  top_logprobs: Optional(Schema.Int.pipe(Schema.between(0, 20))),
  metadata: Optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  modalities: Optional(Schema.Array(Schema.String)),
  reasoning_effort: Optional(Schema.String),
  stop: Optional(Stop),
  tool_choice: Optional(Schema.Union(Schema.String, JsonObject)),
  user: Optional(Schema.String)
}).annotations({ identifier: "OpenAiChatCompletionRequest" })
export type OpenAiChatCompletionRequest = typeof OpenAiChatCompletionRequest.Type

/** `POST /v5/completions` and `/v4/beta/completions`: OpenAI's (legacy) completions body. */
export const OpenAiCompletionRequest = Schema.Struct({
  model: NonEmptyString,
  /** One prompt, or up to 128 (each one completion and one usage record). */
  prompt: Schema.Union(Schema.String, Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(128))),
  best_of: Optional(PositiveInt),
  echo: Optional(Schema.Boolean),
  frequency_penalty: Optional(Schema.Number.pipe(Schema.between(-2, 2))),
  logit_bias: Optional(Schema.Record({ key: Schema.String, value: Schema.Number })),
  logprobs: Optional(Schema.Int.pipe(Schema.between(0, 5))),
  max_tokens: Optional(PositiveInt),
  n: Optional(OneChoice),
  presence_penalty: Optional(Schema.Number.pipe(Schema.between(-2, 2))),
  seed: Optional(Schema.Int),
  stop: Optional(Stop),
  stream: Optional(Schema.Boolean),
  stream_options: Optional(JsonObject),
  suffix: Optional(Schema.String),
  temperature: Optional(Temperature),
  top_p: Optional(Schema.Number.pipe(Schema.between(0, 1))),
  user: Optional(Schema.String)
}).annotations({ identifier: "OpenAiCompletionRequest" })
export type OpenAiCompletionRequest = typeof OpenAiCompletionRequest.Type

/** `POST /v5/responses`: OpenAI's Responses body (input items untyped objects: the kit reads their messages). */
export const OpenAiResponseRequest = Schema.Struct({
  input: Schema.Union(Schema.String, Schema.Array(JsonObject)),
  model: NonEmptyString,
  include: Optional(Schema.Array(Schema.String)),
  instructions: Optional(Schema.String),
  max_output_tokens: Optional(PositiveInt),
  metadata: Optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  parallel_tool_calls: Optional(Schema.Boolean),
  previous_response_id: Optional(Schema.String),
  reasoning: Optional(JsonObject),
  store: Optional(Schema.Boolean),
  stream: Optional(Schema.Boolean),
  temperature: Optional(Temperature),
  text: Optional(JsonObject),
  tool_choice: Optional(Schema.Union(Schema.String, JsonObject)),
  tools: Optional(Schema.Array(JsonObject)),
  top_p: Optional(Schema.Number.pipe(Schema.between(0, 1))),
  truncation: Optional(Schema.Literal("auto", "disabled")),
  user: Optional(Schema.String)
}).annotations({ identifier: "OpenAiResponseRequest" })
export type OpenAiResponseRequest = typeof OpenAiResponseRequest.Type

/** `POST /v5/inference`: `args` is the model's own request (an OpenAI chat or completions body without `model`). */
export const GenericInferenceRequest = Schema.Struct({
  model: NonEmptyString,
  args: Optional(JsonObject),
  inference_configuration: Optional(Schema.Struct({
    num_retries: Optional(Schema.Int.pipe(Schema.between(0, 10))),
    timeout_seconds: Optional(Schema.Int.pipe(Schema.between(1, 3600)))
  }))
}).annotations({ identifier: "GenericInferenceRequest" })
export type GenericInferenceRequest = typeof GenericInferenceRequest.Type

// ---------------------------------------------------------------------------------------------
// Answers

export const OpenAiUsage = Schema.Struct({
  completion_tokens: Schema.Int,
  prompt_tokens: Schema.Int,
  total_tokens: Schema.Int,
  completion_tokens_details: Nullable(JsonObject),
  prompt_tokens_details: Nullable(JsonObject)
}).annotations({ identifier: "OpenAiUsage" })

const FinishReason = Schema.Literal("stop", "length", "tool_calls", "content_filter", "function_call")

const TopLogprob = Schema.Struct({ token: Schema.String, logprob: Schema.Number, bytes: Nullable(Schema.Array(Schema.Int)) })

/** A generated token's log probability (`choices[].logprobs.content[]`). */
export const OpenAiTokenLogprob = Schema.Struct({
  token: Schema.String,
  logprob: Schema.Number,
  bytes: Nullable(Schema.Array(Schema.Int)),
  top_logprobs: Schema.Array(TopLogprob)
}).annotations({ identifier: "OpenAiTokenLogprob" })

const ChatLogprobs = Nullable(Schema.Struct({
  content: Nullable(Schema.Array(OpenAiTokenLogprob)),
  refusal: Nullable(Schema.Array(OpenAiTokenLogprob))
}))

export const OpenAiChatMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Nullable(Schema.String),
  refusal: Nullable(Schema.String),
  annotations: Nullable(Schema.Array(JsonObject)),
  audio: Nullable(JsonObject),
  function_call: Nullable(JsonObject),
  tool_calls: Nullable(Schema.Array(JsonObject))
}).annotations({ identifier: "OpenAiChatMessage" })

/** A chat completion (`object: "chat.completion"`); v4 beta answers the same. */
export const OpenAiChatCompletion = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("chat.completion"),
  created: Schema.Int,
  model: Schema.String,
  choices: Schema.Array(Schema.Struct({
    index: Schema.Int,
    message: OpenAiChatMessage,
    finish_reason: FinishReason,
    logprobs: ChatLogprobs
  })),
  service_tier: Nullable(Schema.Literal("auto", "default", "flex", "scale", "priority")),
  system_fingerprint: Nullable(Schema.String),
  usage: Nullable(OpenAiUsage)
}).annotations({ identifier: "OpenAiChatCompletion" })
export type OpenAiChatCompletion = typeof OpenAiChatCompletion.Type

/** A streamed piece of a chat completion (an SSE `data:` frame); the last one has the finish and the usage. */
export const OpenAiChatCompletionChunk = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("chat.completion.chunk"),
  created: Schema.Int,
  model: Schema.String,
  choices: Schema.Array(Schema.Struct({
    index: Schema.Int,
    delta: Schema.Struct({
      role: Nullable(Schema.Literal("developer", "system", "user", "assistant", "tool")),
      content: Nullable(Schema.String),
      refusal: Nullable(Schema.String),
      function_call: Nullable(JsonObject),
      tool_calls: Nullable(Schema.Array(JsonObject))
    }),
    finish_reason: Nullable(FinishReason),
    logprobs: ChatLogprobs
  })),
  service_tier: Nullable(Schema.Literal("auto", "default", "flex", "scale", "priority")),
  system_fingerprint: Nullable(Schema.String),
  usage: Nullable(OpenAiUsage)
}).annotations({ identifier: "OpenAiChatCompletionChunk" })
export type OpenAiChatCompletionChunk = typeof OpenAiChatCompletionChunk.Type

/** A completion (`object: "text_completion"`); each streamed frame is one too. */
export const OpenAiCompletion = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("text_completion"),
  created: Schema.Int,
  model: Schema.String,
  choices: Schema.Array(Schema.Struct({
    index: Schema.Int,
    text: Schema.String,
    finish_reason: Nullable(Schema.Literal("stop", "length", "content_filter")),
    logprobs: Nullable(Schema.Struct({
      text_offset: Schema.Array(Schema.Int),
      token_logprobs: Schema.Array(Schema.Number),
      tokens: Schema.Array(Schema.String),
      top_logprobs: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Number }))
    }))
  })),
  system_fingerprint: Nullable(Schema.String),
  usage: Nullable(OpenAiUsage)
}).annotations({ identifier: "OpenAiCompletion" })
export type OpenAiCompletion = typeof OpenAiCompletion.Type

/** An output message of a response: its text as one `output_text` part. */
export const OpenAiResponseOutputMessage = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("message"),
  role: Schema.Literal("assistant"),
  status: Schema.Literal("in_progress", "completed", "incomplete"),
  content: Schema.Array(Schema.Struct({
    type: Schema.Literal("output_text"),
    text: Schema.String,
    annotations: Schema.Array(JsonObject),
    logprobs: Nullable(Schema.Array(JsonObject))
  }))
}).annotations({ identifier: "OpenAiResponseOutputMessage" })

export const OpenAiResponseUsage = Schema.Struct({
  input_tokens: Schema.Int,
  input_tokens_details: Schema.Struct({ cached_tokens: Schema.Int }),
  output_tokens: Schema.Int,
  output_tokens_details: Schema.Struct({ reasoning_tokens: Schema.Int }),
  total_tokens: Schema.Int
}).annotations({ identifier: "OpenAiResponseUsage" })

/** A response of `/v5/responses` (`object: "response"`). */
export const OpenAiResponse = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("response"),
  created_at: Schema.Number,
  model: Schema.String,
  status: Schema.Literal("completed", "failed", "in_progress", "cancelled", "queued", "incomplete"),
  output: Schema.Array(OpenAiResponseOutputMessage),
  output_text: Schema.String,
  error: Nullable(Schema.Struct({ code: Schema.String, message: Schema.String })),
  incomplete_details: Nullable(Schema.Struct({ reason: Nullable(Schema.Literal("max_output_tokens", "content_filter")) })),
  instructions: Nullable(Schema.String),
  max_output_tokens: Nullable(Schema.Int),
  metadata: Nullable(Schema.Record({ key: Schema.String, value: Schema.String })),
  parallel_tool_calls: Schema.Boolean,
  previous_response_id: Nullable(Schema.String),
  temperature: Nullable(Schema.Number),
  top_p: Nullable(Schema.Number),
  tool_choice: Schema.Union(Schema.String, JsonObject),
  tools: Schema.Array(JsonObject),
  truncation: Nullable(Schema.Literal("auto", "disabled")),
  text: Nullable(JsonObject),
  reasoning: Nullable(JsonObject),
  user: Nullable(Schema.String),
  usage: Nullable(OpenAiResponseUsage)
}).annotations({ identifier: "OpenAiResponse" })
export type OpenAiResponse = typeof OpenAiResponse.Type

/** `/v5/inference`'s answer: the model's own answer in `response`. */
export const GenericInferenceResponse = Schema.Struct({
  response: Schema.Unknown,
  object: Schema.Literal("generic_inference")
}).annotations({ identifier: "GenericInferenceResponse" })

/** A streamed frame of `/v5/inference` (`args.stream: true`). */
export const GenericInferenceChunk = Schema.Struct({
  response: Schema.Unknown,
  object: Schema.Literal("generic_inference.chunk")
}).annotations({ identifier: "GenericInferenceChunk" })

/**
 * The last frame of a stream that broke off after it started (`event: error`): what OpenAI's
 * client reads (`error.message`), and the kit's `status_code` and `detail` (its client's
 * `StreamBrokeOff`).
 */
export const OpenAiStreamError = Schema.Struct({
  error: Schema.Struct({ message: Schema.String, type: Schema.String, status_code: Schema.Int, detail: Schema.String })
}).annotations({ identifier: "OpenAiStreamError" })

// ---------------------------------------------------------------------------------------------
// The catalogue: `GET /v5/chat/completions/models`

export const ModelDefinition = Schema.Struct({
  model_name: Schema.String,
  model_type: Schema.Literal("generic", "completion", "chat_completion"),
  model_vendor: InferenceModelVendor,
  model_availability: Nullable(Schema.Literal("unknown", "available", "unavailable"))
}).annotations({ identifier: "ModelDefinition" })
export type ModelDefinition = typeof ModelDefinition.Type

export const CompletionModelsResponse = Schema.Struct({
  items: Schema.Array(ModelDefinition),
  object: Schema.Literal("list")
}).annotations({ identifier: "CompletionModelsResponse" })

/** Its query: a page of model names (`starting_after` / `ending_before` are model names), by name, of a vendor. */
export const CompletionModelsQuery = Schema.Struct({
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 10000)), { exact: true }),
  starting_after: Schema.optionalWith(Schema.String, { exact: true }),
  ending_before: Schema.optionalWith(Schema.String, { exact: true }),
  sort_order: Schema.optionalWith(Schema.Literal("asc", "desc"), { exact: true }),
  sort_by: Schema.optionalWith(Schema.Literal("model_name"), { exact: true }),
  model_vendor: Schema.optionalWith(InferenceModelVendor, { exact: true })
})
