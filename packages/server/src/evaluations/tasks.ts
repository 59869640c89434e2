import { chatCompletionOptionalFields } from "@platform-kit/schema"
import type { ChatCompletionConfiguration, EvaluationTask, EvaluationTaskInput } from "@platform-kit/schema"

/** A task as a create sent it, as stored and answered: every field present, `null` when left out. */
export const taskOf = (input: EvaluationTaskInput): EvaluationTask => ({
  configuration: {
    model: input.configuration.model,
    ...Object.fromEntries(chatCompletionOptionalFields.map((field) => [field, input.configuration[field] ?? null]))
  } as ChatCompletionConfiguration,
  task_type: input.task_type,
  alias: input.alias ?? null
})
