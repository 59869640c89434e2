/** Model groups (v4). */
import { Schema } from "effect"
import { AuditFields, Id, NonEmptyString, Nullable, Optional } from "./common.js"

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
