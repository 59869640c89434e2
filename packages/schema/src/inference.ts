/**
 * Running models by name and executing deployments and servers (the real v4 SDK's endpoints;
 * docs/models.md "Execution"): the top-level v4 completions and chat completions, whose `model` is
 * a string the kit resolves, and the execute endpoints' generic body and answer.
 */
import { Schema } from "effect"
import { Id, JsonObject, NonEmptyString } from "./common.js"
import { FlexibleMessage } from "./model-instances.js"

/** Generation settings of the top-level endpoints (wire keys `topK`, `topP`, as the SDK sends them). */
export const ModelParameters = Schema.Struct({
  frequency_penalty: Schema.optionalWith(Schema.Number, { exact: true }),
  max_tokens: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  presence_penalty: Schema.optionalWith(Schema.Number, { exact: true }),
  stop_sequences: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  temperature: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 1)), { exact: true }),
  topK: Schema.optionalWith(Schema.Int, { exact: true }),
  topP: Schema.optionalWith(Schema.Number, { exact: true })
}).annotations({ identifier: "ModelParameters" })

export const TopLevelCompletionRequest = Schema.Struct({
  model: NonEmptyString,
  prompt: Schema.String,
  account_id: Schema.optionalWith(Id, { exact: true }),
  images: Schema.optionalWith(
    Schema.Array(Schema.Struct({ image_url: Schema.String, detail: Schema.optionalWith(Schema.String, { exact: true }) })),
    { exact: true }
  ),
  model_parameters: Schema.optionalWith(ModelParameters, { exact: true }),
  stream: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ identifier: "TopLevelCompletionRequest" })

export const MemoryStrategy = Schema.Struct({
  name: Schema.optionalWith(Schema.Literal("last_k"), { exact: true }),
  params: Schema.Struct({ k: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)) })
}).annotations({ identifier: "MemoryStrategy" })

export const TopLevelChatCompletionRequest = Schema.Struct({
  model: NonEmptyString,
  messages: Schema.Array(FlexibleMessage),
  account_id: Schema.optionalWith(Id, { exact: true }),
  chat_template: Schema.optionalWith(Schema.String, { exact: true }),
  instructions: Schema.optionalWith(Schema.String, { exact: true }),
  memory_strategy: Schema.optionalWith(MemoryStrategy, { exact: true }),
  model_parameters: Schema.optionalWith(ModelParameters, { exact: true }),
  stream: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ identifier: "TopLevelChatCompletionRequest" })

export const TokenUsage = Schema.Struct({
  total: Schema.Int,
  completion: Schema.optionalWith(Schema.Int, { exact: true }),
  prompt: Schema.optionalWith(Schema.Int, { exact: true })
}).annotations({ identifier: "TokenUsage" })

export const CompletionsResponse = Schema.Struct({
  completion: Schema.Struct({
    text: Schema.String,
    finish_reason: Schema.optionalWith(Schema.String, { exact: true }),
    response_metadata: Schema.optionalWith(JsonObject, { exact: true })
  }),
  token_usage: Schema.optionalWith(TokenUsage, { exact: true })
}).annotations({ identifier: "CompletionsResponse" })

export const ChatCompletionsResponse = Schema.Struct({
  chat_completion: Schema.Struct({
    message: Schema.Struct({ role: Schema.Literal("user", "assistant", "system"), content: Schema.String }),
    finish_reason: Schema.optionalWith(Schema.String, { exact: true })
  }),
  token_usage: Schema.optionalWith(TokenUsage, { exact: true })
}).annotations({ identifier: "ChatCompletionsResponse" })

// ---------------------------------------------------------------------------------------------
// Streamed generations (`stream: true`, docs/models.md "Streaming"): the `data:` frames

/** A streamed frame of an endpoint answering `response`: its shape, `token_usage` `null` until the last frame. */
const streamFrameOf = <Fields extends { readonly token_usage: Schema.Schema.All | Schema.PropertySignature.All }>(
  response: Schema.Struct<Fields>
) => Schema.Struct({ ...response.fields, token_usage: Schema.NullOr(TokenUsage) })

/** A frame of `/v4/chat-completions` streamed: a piece of the reply; the last one the finish and the usage. */
export const ChatCompletionsStreamFrame = streamFrameOf(ChatCompletionsResponse).annotations({ identifier: "ChatCompletionsStreamFrame" })

/** A frame of `/v4/completions` streamed. */
export const CompletionsStreamFrame = streamFrameOf(CompletionsResponse).annotations({ identifier: "CompletionsStreamFrame" })

/**
 * The last frame of a stream that broke off after it started (the upstream cut it: 502; it went
 * silent: 504); no `[DONE]` follows. As an error of the typed client's streams: `StreamBrokeOff`.
 */
export class StreamBrokeOff extends Schema.TaggedError<StreamBrokeOff>()("StreamBrokeOff", {
  status_code: Schema.Int,
  detail: Schema.String
}) {}

export const StreamErrorFrame = Schema.Struct({
  error: Schema.Struct({ status_code: Schema.Int, detail: Schema.String })
}).annotations({ identifier: "StreamErrorFrame" })

/**
 * The body of an execute: `stream`, and the request of the deployment's model (the fields of a
 * chat completion, a completion, an embedding or a reranking, docs/models.md), kept whole.
 */
export const ExecuteRequest = Schema.Struct(
  { stream: Schema.optionalWith(Schema.Boolean, { exact: true }) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "ExecuteRequest" })

/** What an execute answers: `status`, `status_code`, and the model's answer's fields beside them. */
export const GenericModelResponse = Schema.Struct(
  {
    error_message: Schema.optionalWith(Schema.String, { exact: true }),
    status: Schema.optionalWith(Schema.String, { exact: true }),
    status_code: Schema.optionalWith(Schema.Int, { exact: true })
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "GenericModelResponse" })
