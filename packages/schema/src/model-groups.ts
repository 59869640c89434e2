/** Model groups (v4). */
import { Schema } from "effect"
import { AuditFields, Id, NonEmptyString, Nullable, Optional } from "./common.js"
import { QueryInstant } from "./models.js"

export class ModelGroup extends Schema.Class<ModelGroup>("ModelGroup")({
  id: Id,
  name: Schema.String,
  description: Nullable(Schema.String),
  ...AuditFields
}) {}

export class CreateModelGroup extends Schema.Class<CreateModelGroup>("CreateModelGroup")({
  name: NonEmptyString,
  account_id: Id,
  description: Optional(Schema.String)
}) {}

/** An update: absent fields stay; `description: null` clears the description. */
export class UpdateModelGroup extends Schema.Class<UpdateModelGroup>("UpdateModelGroup")({
  name: Schema.optionalWith(NonEmptyString, { exact: true }),
  description: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
}) {}

/**
 * Query of a model group's usage statistics: the window `[start_date, end_date)` in `chunks`
 * equal chunks, all three required (as the SDK sends them).
 */
export const ModelGroupUsageQuery = Schema.Struct({
  /** How many data points (1–1000). */
  chunks: Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000)),
  start_date: QueryInstant,
  end_date: QueryInstant
})
