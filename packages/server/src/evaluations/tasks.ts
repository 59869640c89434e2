import { chatCompletionOptionalFields } from "@platform-kit/schema"
import type { ChatCompletionConfiguration, EvaluationTask, EvaluationTaskInput } from "@platform-kit/schema"

/**
 * A task as a create sent it, as stored and answered: a `chat_completion` configuration with every
 * field present (`null` when left out), any other configuration as given; `alias` `null` when left out.
 */
export const taskOf = (input: EvaluationTaskInput): EvaluationTask => {
  const alias = input.alias ?? null
  switch (input.task_type) {
    case "chat_completion": {
      const given = input.configuration
      return {
        configuration: {
          model: given.model,
          ...Object.fromEntries(chatCompletionOptionalFields.map((field) => [field, given[field] ?? null]))
        } as ChatCompletionConfiguration,
        task_type: "chat_completion",
        alias
      }
    }
    case "metric":
      return { configuration: input.configuration, task_type: "metric", alias }
    default:
      return { configuration: input.configuration, task_type: input.task_type, alias }
  }
}

/** Whether the kit runs tasks of this type (`chat_completion`, `metric`); the other types are stored only. */
export const runs = (task: EvaluationTask) => task.task_type === "chat_completion" || task.task_type === "metric"
