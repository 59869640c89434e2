/**
 * Application specs, their variants (a union on `version`: `V0`, `AGENTS_SERVICE`, `OFFLINE`) and
 * chat themes (docs/applications.md "Specs, variants and themes").
 */
import { Schema } from "effect"
import { ApplicationEdge, ApplicationNode } from "./applications.js"
import { DateTimeString, Id, JsonObject, NonEmptyString, Nullable, Optional, QueryBoolean, V4PageQuery } from "./common.js"

/** `null` until archived. */
const Archived = { archived_at: Nullable(DateTimeString) }

const entityFields = {
  id: Id,
  account_id: Id,
  created_at: DateTimeString,
  updated_at: DateTimeString,
  created_by_user_id: Id
}

// ---------------------------------------------------------------------------------------------
// Specs

export class ApplicationSpec extends Schema.Class<ApplicationSpec>("ApplicationSpec")({
  ...entityFields,
  name: Schema.String,
  description: Schema.String,
  run_online_evaluation: Schema.Boolean,
  theme_id: Nullable(Id),
  ...Archived
}) {}

export class CreateApplicationSpec extends Schema.Class<CreateApplicationSpec>("CreateApplicationSpec")({
  account_id: Id,
  name: NonEmptyString,
  description: Schema.String,
  run_online_evaluation: Optional(Schema.Boolean),
  theme_id: Optional(Id)
}) {}

/** A partial update (`restore` absent or `false`), or `{restore: true}` alone: the spec is no longer archived. */
/**
 * A partial update, or `{restore: true}` alone: the spec is no longer archived. A field beside
 * `restore: true` is refused at that field.
 */
export const UpdateApplicationSpec = Schema.Struct({
  restore: Optional(Schema.Boolean),
  name: Optional(NonEmptyString),
  description: Optional(Schema.String),
  run_online_evaluation: Optional(Schema.Boolean),
  /** `null` takes the spec's theme away. */
  theme_id: Schema.optionalWith(Schema.NullOr(Id), { exact: true })
}).pipe(
  Schema.filter((update) => {
    if (update.restore !== true) return undefined
    const beside = (["name", "description", "run_online_evaluation", "theme_id"] as const).find((field) => field in update)
    return beside === undefined
      ? undefined
      : { path: [beside], message: "Not allowed with restore: true (a restore takes no other field)" }
  })
).annotations({ identifier: "UpdateApplicationSpec" })
export type UpdateApplicationSpec = typeof UpdateApplicationSpec.Type

/** Query of the spec and theme lists: a v4 page, archived ones only with `include_archived=true`. */
export const ArchivableListQuery = Schema.Struct({
  ...V4PageQuery,
  include_archived: Schema.optionalWith(QueryBoolean, { exact: true })
})

// ---------------------------------------------------------------------------------------------
// Variant configurations

export class GuardrailConfig extends Schema.Class<GuardrailConfig>("GuardrailConfig")({
  guardrails_to_execute: Schema.Array(Schema.String)
}) {}

/** A V0 graph: nodes wired by edges from an output field to an input field. */
export class ApplicationConfiguration extends Schema.Class<ApplicationConfiguration>("ApplicationConfiguration")({
  nodes: Schema.Array(ApplicationNode),
  edges: Schema.Array(ApplicationEdge),
  guardrail_config: Schema.optionalWith(GuardrailConfig, { exact: true }),
  metadata: Schema.optionalWith(JsonObject, { exact: true })
}) {}

export const AgentOperationType = Schema.Literal(
  "TEXT_INPUT", "TEXT_OUTPUT", "COMPLETION_INPUT", "COMPLETION", "KB_RETRIEVAL", "KB_INPUT", "RERANKING",
  "EXTERNAL_ENDPOINT", "PROMPT_ENGINEERING", "DOCUMENT_INPUT", "MAP_REDUCE", "DOCUMENT_SEARCH", "DOCUMENT_PROMPT",
  "CUSTOM", "INPUT_GUARDRAIL", "OUTPUT_GUARDRAIL", "CODE_EXECUTION", "DATA_MANIPULATION", "EVALUATION", "FILE_RETRIEVAL"
).annotations({ identifier: "AgentOperationType" })

export class AgentGraphEdge extends Schema.Class<AgentGraphEdge>("AgentGraphEdge")({
  from_node: Schema.String,
  to_node: Schema.String
}) {}

/**
 * A node of an agents-service graph. A node may hold a graph of its own (`nodes`, `edges`): those
 * inner nodes are kept as given (free objects), not checked level by level.
 */
export class ApplicationAgentGraphNode extends Schema.Class<ApplicationAgentGraphNode>("ApplicationAgentGraphNode")({
  id: Schema.String,
  name: Schema.String,
  type: Schema.String,
  config: Schema.optionalWith(JsonObject, { exact: true }),
  edges: Schema.optionalWith(Schema.Array(AgentGraphEdge), { exact: true }),
  nodes: Schema.optionalWith(Schema.Array(JsonObject), { exact: true }),
  operation_type: Schema.optionalWith(AgentOperationType, { exact: true })
}) {}

export const ApplicationAgentInputType = Schema.Literal(
  "ShortText", "SentenceText", "ParagraphText", "ArtifactId", "ArtifactIds", "KnowledgeBaseId", "KnowledgeBaseIds",
  "InputImageDir", "Message", "Messages", "integer", "number", "string", "boolean", "array", "object", "unknown"
).annotations({ identifier: "ApplicationAgentInputType" })

export class AgentInput extends Schema.Class<AgentInput>("AgentInput")({
  name: Schema.String,
  type: ApplicationAgentInputType,
  default: Schema.optionalWith(Schema.String, { exact: true }),
  description: Schema.optionalWith(Schema.String, { exact: true }),
  examples: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  required: Schema.optionalWith(Schema.Boolean, { exact: true }),
  title: Schema.optionalWith(Schema.String, { exact: true }),
  value_constraint: Schema.optionalWith(
    Schema.Struct({
      potential_values: Schema.Array(Schema.String),
      selection_constraint_type: Schema.Literal("single", "multi"),
      value_type: ApplicationAgentInputType
    }),
    { exact: true }
  )
}) {}

export const AgentsServiceType = Schema.Literal("WORKFLOW", "PLAN", "STATE_MACHINE").annotations({ identifier: "AgentsServiceType" })

/** The configuration of an agents-service variant: what the agent service is handed (`params`) and what it reported. */
export class AgentsServiceConfiguration extends Schema.Class<AgentsServiceConfiguration>("AgentsServiceConfiguration")({
  params: JsonObject,
  type: AgentsServiceType,
  agent_service_errors: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  graph: Schema.optionalWith(
    Schema.Struct({ edges: Schema.Array(AgentGraphEdge), nodes: Schema.Array(ApplicationAgentGraphNode) }),
    { exact: true }
  ),
  guardrail_config: Schema.optionalWith(GuardrailConfig, { exact: true }),
  inputs: Schema.optionalWith(Schema.Array(AgentInput), { exact: true }),
  inputs_by_node: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Array(AgentInput) }), { exact: true }),
  metadata: Schema.optionalWith(JsonObject, { exact: true }),
  raw_configuration: Schema.optionalWith(Schema.String, { exact: true })
}) {}

/** An application that does not run on the platform: its interactions are recorded from outside. */
export class OfflineConfiguration extends Schema.Class<OfflineConfiguration>("OfflineConfiguration")({
  guardrail_config: Schema.optionalWith(GuardrailConfig, { exact: true }),
  metadata: Schema.optionalWith(JsonObject, { exact: true })
}) {}

// ---------------------------------------------------------------------------------------------
// Variants

const createVariantFields = {
  account_id: Id,
  application_spec_id: Id,
  name: NonEmptyString,
  description: Optional(Schema.String),
  /** A draft's V0 graph is stored as given; a variant that is not a draft must pass validation. */
  draft: Optional(Schema.Boolean),
  published_at: Optional(DateTimeString)
}

export class CreateV0Variant extends Schema.Class<CreateV0Variant>("CreateV0Variant")({
  ...createVariantFields,
  version: Schema.Literal("V0"),
  configuration: ApplicationConfiguration
}) {}

export class CreateAgentsServiceVariant extends Schema.Class<CreateAgentsServiceVariant>("CreateAgentsServiceVariant")({
  ...createVariantFields,
  version: Schema.Literal("AGENTS_SERVICE"),
  configuration: AgentsServiceConfiguration
}) {}

export class CreateOfflineVariant extends Schema.Class<CreateOfflineVariant>("CreateOfflineVariant")({
  ...createVariantFields,
  version: Schema.Literal("OFFLINE"),
  configuration: OfflineConfiguration
}) {}

export const CreateApplicationVariant = Schema.Union(CreateV0Variant, CreateAgentsServiceVariant, CreateOfflineVariant)
  .annotations({ identifier: "CreateApplicationVariant" })
export type CreateApplicationVariant = typeof CreateApplicationVariant.Type

const variantFields = {
  id: Id,
  account_id: Id,
  application_spec_id: Id,
  name: Schema.String,
  description: Nullable(Schema.String),
  draft: Schema.Boolean,
  published_at: Nullable(DateTimeString),
  created_at: DateTimeString,
  updated_at: DateTimeString,
  created_by_user_id: Id
}

export class ApplicationVariantV0 extends Schema.Class<ApplicationVariantV0>("ApplicationVariantV0Response")({
  ...variantFields,
  version: Schema.Literal("V0"),
  configuration: ApplicationConfiguration
}) {}

export class ApplicationVariantAgentsService
  extends Schema.Class<ApplicationVariantAgentsService>("ApplicationVariantAgentsServiceResponse")({
    ...variantFields,
    version: Schema.Literal("AGENTS_SERVICE"),
    configuration: AgentsServiceConfiguration
  })
{}

export class ApplicationVariantOffline extends Schema.Class<ApplicationVariantOffline>("OfflineApplicationVariantResponse")({
  ...variantFields,
  version: Schema.Literal("OFFLINE"),
  configuration: OfflineConfiguration
}) {}

/** A variant as every endpoint answers it: told apart by `version`. */
export const ApplicationVariant = Schema.Union(ApplicationVariantV0, ApplicationVariantAgentsService, ApplicationVariantOffline)
  .annotations({ identifier: "ApplicationVariant" })
export type ApplicationVariant = typeof ApplicationVariant.Type

/**
 * A variant's patch: `name`, `description`, and `configuration` fields merged into the stored
 * configuration (`metadata` for every version; `params`, `raw_configuration`, `type` for
 * agents-service variants only).
 */
export class PatchApplicationVariant extends Schema.Class<PatchApplicationVariant>("PatchApplicationVariant")({
  name: Optional(NonEmptyString),
  description: Optional(Schema.String),
  configuration: Optional(
    Schema.Struct({
      metadata: Optional(JsonObject),
      params: Optional(JsonObject),
      raw_configuration: Optional(Schema.String),
      type: Optional(AgentsServiceType)
    })
  )
}) {}

export const ApplicationVariantListQuery = Schema.Struct({
  ...V4PageQuery,
  application_spec_id: Schema.optionalWith(Id, { exact: true })
})

// ---------------------------------------------------------------------------------------------
// Themes (camelCase wire keys, as the platform's)

export class ThemeVars extends Schema.Class<ThemeVars>("ThemeVars")({
  accentPrimary: Optional(Schema.String),
  accentSecondary: Optional(Schema.String),
  background: Optional(Schema.String),
  foreground: Optional(Schema.String)
}) {}

/** A theme's variables as answered: each one `null` when not set. */
export class ThemeVarsAnswered extends Schema.Class<ThemeVarsAnswered>("ThemeVarsAnswered")({
  accentPrimary: Nullable(Schema.String),
  accentSecondary: Nullable(Schema.String),
  background: Nullable(Schema.String),
  foreground: Nullable(Schema.String)
}) {}

export class Theme extends Schema.Class<Theme>("Theme")({
  ...entityFields,
  title: Schema.String,
  /** The logo as the client gave it (a data URL, an address, base64: the kit keeps the text). */
  logo_blob: Schema.String,
  theme_vars: ThemeVarsAnswered,
  ...Archived
}) {}

export class CreateTheme extends Schema.Class<CreateTheme>("CreateTheme")({
  account_id: Id,
  title: NonEmptyString,
  logo_blob: Schema.String,
  theme_vars: ThemeVars
}) {}
