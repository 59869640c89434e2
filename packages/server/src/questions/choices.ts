/**
 * The rule of docs/questions.md that spans two fields of a question create: a categorical question needs
 * at least one choice. Checked after the body's shape and before ownership, answering 422 at
 * `["body","choices"]` (`missing` when absent or null, `too_short` when empty).
 */
import type { CreateQuestion } from "@platform-kit/schema"
import { ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect } from "effect"

const invalid = (issue: ValidationIssue) => Effect.fail(new ValidationError({ detail: [issue] }))

export const requireChoices = (payload: CreateQuestion): Effect.Effect<void, ValidationError> => {
  if (payload.type !== "categorical") return Effect.void
  if (payload.choices === undefined) {
    return invalid(
      new ValidationIssue({
        loc: ["body", "choices"],
        msg: "Field required: a categorical question needs choices",
        type: "missing",
        input: null
      })
    )
  }
  if (payload.choices.length === 0) {
    return invalid(
      new ValidationIssue({
        loc: ["body", "choices"],
        msg: "List should have at least 1 item: a categorical question needs choices",
        type: "too_short",
        input: [],
        ctx: { min_length: 1 }
      })
    )
  }
  return Effect.void
}
