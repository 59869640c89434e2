/** Studio projects (docs/questions.md "Studio projects"). */
import { Schema } from "effect"
import { AuditFields, Id, NonEmptyString, Optional } from "./common.js"

/** A Studio project. Its `studio_api_key` is write-only: sealed at rest, never answered. */
export class StudioProject extends Schema.Class<StudioProject>("StudioProject")({
  id: Id,
  name: Schema.String,
  description: Schema.String,
  ...AuditFields
}) {}

/** The Studio API key on the wire: a non-empty string, held as `Redacted` so it never prints. */
export const StudioApiKey = Schema.Redacted(NonEmptyString).annotations({
  description: "Your API key for Studio; write-only (sealed at rest, never answered), can be updated with the PATCH endpoint"
})

export class CreateStudioProject extends Schema.Class<CreateStudioProject>("CreateStudioProject")({
  account_id: Id,
  name: NonEmptyString,
  description: Schema.String,
  studio_api_key: StudioApiKey
}) {}

/** A partial update: only the fields given change (`studio_api_key` replaces the sealed key). */
export class UpdateStudioProject extends Schema.Class<UpdateStudioProject>("UpdateStudioProject")({
  name: Optional(NonEmptyString),
  description: Optional(Schema.String),
  studio_api_key: Optional(StudioApiKey)
}) {}
