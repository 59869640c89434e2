import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import {
  CompletionModelsQuery,
  CompletionModelsResponse,
  GenericInferenceRequest,
  GenericInferenceResponse,
  OpenAiChatCompletion,
  OpenAiChatCompletionRequest,
  OpenAiCompletion,
  OpenAiCompletionRequest,
  OpenAiBadGateway,
  OpenAiConflict,
  OpenAiForbidden,
  OpenAiGatewayTimeout,
  OpenAiInternalServerError,
  OpenAiNotFound,
  OpenAiPayloadTooLarge,
  OpenAiResponse,
  OpenAiResponseRequest,
  OpenAiUnauthorized,
  OpenAiUpstreamBadRequest,
  OpenAiUpstreamRateLimited,
  OpenAiValidationError
} from "@platform-kit/schema"
import { CurrentCaller } from "./security.js"

/**
 * The front door's security: the API's keys (`x-api-key`, or `Authorization: Bearer` as OpenAI's
 * clients send it), its 401 with OpenAI's error object (`OpenAiUnauthorized`).
 */
export class OpenAiAuthentication extends HttpApiMiddleware.Tag<OpenAiAuthentication>()("OpenAiAuthentication", {
  failure: OpenAiUnauthorized,
  provides: CurrentCaller,
  security: {
    apiKey: HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" }),
    bearer: HttpApiSecurity.bearer
  }
}) {}

/**
 * An endpoint of the front door that runs a model: every error it answers has OpenAI's shape (the
 * kit's `detail` and OpenAI's `error` object, which OpenAI's clients read), the 422 of a request
 * that does not decode as well (the server's http/validation.ts answers it so when the endpoint
 * declares `OpenAiValidationError`).
 */
const modelRunEndpoint = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path)
    .addError(OpenAiValidationError)
    .addError(OpenAiForbidden)
    .addError(OpenAiNotFound)
    .addError(OpenAiConflict)
    .addError(OpenAiUpstreamBadRequest)
    .addError(OpenAiUpstreamRateLimited)
    .addError(OpenAiBadGateway)
    .addError(OpenAiGatewayTimeout)
    .addError(OpenAiPayloadTooLarge)
    .addError(OpenAiInternalServerError)

const modelString =
  "`model` names what runs it as the v4 endpoints resolve it (a model server alias, a deployment id, a model's id or name, or `builtin`), with or without a `vendor/` prefix."
const streaming =
  "With `stream: true` the answer is `text/event-stream`: `data:` frames of JSON without `event:` lines and no `[DONE]` (the body's end ends the stream); a failure after the start is one last `event: error` frame."

/**
 * The v5 OpenAI-style front door (docs/inference-v5.md): OpenAI's bodies and answers, run by the
 * kit's model gateway.
 */
export class OpenAiInferenceApi extends HttpApiGroup.make("openAiInference")
  .middleware(OpenAiAuthentication)
  .add(
    modelRunEndpoint("chatCompletions", "/v5/chat/completions")
      .setPayload(OpenAiChatCompletionRequest)
      .addSuccess(OpenAiChatCompletion)
      .annotate(OpenApi.Summary, "Create a chat completion")
      .annotate(OpenApi.Description, `OpenAI's chat completions: the model's reply to \`messages\`. ${modelString} ${streaming} Frames are \`chat.completion.chunk\`s; the last has \`finish_reason\` and \`usage\`.`)
  )
  .add(
    HttpApiEndpoint.get("models", "/v5/chat/completions/models")
      .setUrlParams(CompletionModelsQuery)
      .addError(OpenAiValidationError)
      .addError(OpenAiForbidden)
      .addError(OpenAiInternalServerError)
      .addSuccess(CompletionModelsResponse)
      .annotate(OpenApi.Summary, "List the models chat completions can call")
      .annotate(
        OpenApi.Description,
        "What the caller may name as `model`: `builtin`, each model server alias and each registered model with a READY deployment, of the caller's accounts (the selected one when `x-selected-account-id` is sent); by `model_name`, `starting_after` / `ending_before` being model names."
      )
  )
  .add(
    modelRunEndpoint("completions", "/v5/completions")
      .setPayload(OpenAiCompletionRequest)
      .addSuccess(OpenAiCompletion)
      .annotate(OpenApi.Summary, "Create a completion")
      .annotate(OpenApi.Description, `OpenAI's (legacy) completions: one choice per prompt. ${modelString} ${streaming} Each frame is a whole \`text_completion\`.`)
  )
  .add(
    modelRunEndpoint("responses", "/v5/responses")
      .setPayload(OpenAiResponseRequest)
      .addSuccess(OpenAiResponse)
      .annotate(OpenApi.Summary, "Create a response")
      .annotate(
        OpenApi.Description,
        `OpenAI's Responses: the reply to \`input\` (a string or message items) after \`instructions\`, as one output message. ${modelString} With \`stream: true\`, OpenAI's Responses events as \`data:\` frames (\`response.created\` … \`response.completed\`); the platform's SDK does not stream this method.`
      )
  )
  .add(
    modelRunEndpoint("inference", "/v5/inference")
      .setPayload(GenericInferenceRequest)
      .addSuccess(GenericInferenceResponse)
      .annotate(OpenApi.Summary, "Run a model on its own request")
      .annotate(
        OpenApi.Description,
        `\`args\` is the model's request, an OpenAI chat (\`messages\`) or completions (\`prompt\`) body; the answer is OpenAI's, in \`response\`. ${modelString} \`args.stream: true\` streams \`generic_inference.chunk\` frames; \`inference_configuration.timeout_seconds\` bounds the call (504).`
      )
  )
  .annotate(OpenApi.Title, "OpenAI-style inference (v5)")
  .annotate(OpenApi.Description, "Chat completions, completions, responses and generic inference with OpenAI's bodies and answers.")
{}

/** v4's beta completions and chat completions: the same bodies and answers as v5's. */
export class BetaInferenceApi extends HttpApiGroup.make("betaInference")
  .middleware(OpenAiAuthentication)
  .add(
    modelRunEndpoint("chatCompletions", "/v4/beta/chat/completions")
      .setPayload(OpenAiChatCompletionRequest)
      .addSuccess(OpenAiChatCompletion)
      .annotate(OpenApi.Summary, "Create a chat completion (v4 beta)")
      .annotate(OpenApi.Description, `The same as \`POST /v5/chat/completions\`. ${modelString} ${streaming}`)
  )
  .add(
    modelRunEndpoint("completions", "/v4/beta/completions")
      .setPayload(OpenAiCompletionRequest)
      .addSuccess(OpenAiCompletion)
      .annotate(OpenApi.Summary, "Create a completion (v4 beta)")
      .annotate(OpenApi.Description, `The same as \`POST /v5/completions\`. ${modelString} ${streaming}`)
  )
  .annotate(OpenApi.Title, "OpenAI-style inference (v4 beta)")
  .annotate(OpenApi.Description, "v4's beta completions and chat completions, with OpenAI's bodies and answers.")
{}
