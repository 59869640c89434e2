/**
 * `POST /v4/agents/execute` (docs/models.md "Agents: one step"): one stateless step over the
 * conversation the caller keeps. `model` runs as the account's model of that name (a model server
 * alias, a model's name: ModelResolver), else as the built-in model; the step's prompt (step.ts)
 * must fit the name's context window with the `max_tokens` asked for, else 422.
 */
import { CurrentCaller } from "@platform-kit/api"
import { ExecuteAgentResponse, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountsForRead } from "../auth/access.js"
import type { ImplementGroup } from "../http/groups.js"
import { countTokens } from "../models/inference/builtin.js"
import { builtinProvider } from "../models/inference/builtinProvider.js"
import { recorded } from "../models/inference/metered.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import type { GenerationOptions, Message } from "../models/inference/Provider.js"
import { ModelUsageRepo } from "../models/usage/ModelUsageRepo.js"
import { Ids } from "../platform/Ids.js"
import {
  answerOf,
  builtinToolChoice,
  chatMessage,
  contentAnswer,
  contextWindows,
  defaultInstructions,
  remembered,
  systemPrompt
} from "./step.js"

const invalid = (loc: ReadonlyArray<string | number>, msg: string, type: string, input: unknown) =>
  new ValidationError({ detail: [new ValidationIssue({ loc, msg, type, input })] })

export const AgentsExecuteHttp = (group: ImplementGroup) =>
  group("agentsExecute", (handlers) =>
    Effect.gen(function*() {
      const resolver = yield* ModelResolver
      const recording = { ids: yield* Ids, usage: yield* ModelUsageRepo }

      return handlers.handle("execute", ({ payload }) =>
        Effect.gen(function*() {
          const accounts = yield* accountsForRead()
          const names = payload.tools.map((tool) => tool.name)
          const repeated = names.findIndex((name, i) => names.indexOf(name) !== i)
          if (repeated >= 0) {
            return yield* Effect.fail(
              invalid(["body", "tools", repeated, "name"], `Tool names are unique within a call: ${names[repeated]} is given twice`, "value_error", names[repeated])
            )
          }
          const parameters = payload.model_parameters ?? {}
          const options: GenerationOptions = {
            temperature: parameters.temperature ?? 0.2,
            max_tokens: parameters.max_tokens,
            stop: parameters.stop_sequences,
            top_p: parameters.topP,
            top_k: parameters.topK,
            frequency_penalty: parameters.frequency_penalty,
            presence_penalty: parameters.presence_penalty
          }
          const seen = remembered(payload.messages, payload.memory_strategy?.params.k)
          const messages: Array<Message> = [
            { role: "system", content: systemPrompt(payload.instructions ?? defaultInstructions, payload.tools) },
            ...seen.map(chatMessage)
          ]
          const window = contextWindows[payload.model]
          const needed = messages.reduce((sum, message) => sum + countTokens(message.content), 0) + (options.max_tokens ?? 0)
          if (needed > window) {
            return yield* Effect.fail(invalid(
              ["body", "messages"],
              `The step needs ${needed} tokens (the prompt, the tools and max_tokens), over ${payload.model}'s context window of ${window}: send fewer messages or use memory_strategy last_k`,
              "context_length_exceeded",
              needed
            ))
          }
          const { deployment, provider } = yield* resolver.resolve(payload.model, accounts).pipe(
            Effect.catchTag("NotFound", () => Effect.succeed({ provider: builtinProvider, deployment: undefined }))
          )
          if (provider === builtinProvider) {
            const chosen = builtinToolChoice(seen, payload.tools)
            if (chosen !== undefined) return new ExecuteAgentResponse(chosen, true)
          }
          const caller = yield* CurrentCaller
          const generation = yield* recorded(recording, provider, deployment, {
            account_id: deployment?.account_id ?? accounts[0]!,
            caller_id: caller.identityId,
            caller_type: caller.identityType
          }).chat(messages, options)
          return new ExecuteAgentResponse(
            provider === builtinProvider ? contentAnswer(generation.text) : answerOf(generation.text, payload.tools),
            true
          )
        }))
    })).pipe(Layer.provide([ModelResolver.Default, ModelUsageRepo.Default]))
