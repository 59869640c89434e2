/**
 * Processing an application (docs/applications.md "Processing"): the body of
 * `POST /v4/applications/{variant_id}/process` and of the unsaved graph's
 * `POST /v4/applications/process`, and the node-schema registry `GET /v4/application-schemas`.
 */
import { Schema } from "effect"
import { ApplicationEdge, ApplicationNode } from "./applications.js"
import { JsonObject, Optional } from "./common.js"

/** A knowledge-base node's retrieval narrowed for one request: by artifact id, by artifact name. */
export class ProcessOverrides extends Schema.Class<ProcessOverrides>("ProcessOverrides")({
  artifact_ids_filter: Optional(Schema.Array(Schema.String)),
  artifact_name_regex: Optional(Schema.Array(Schema.String)),
  type: Optional(Schema.Literal("knowledge_base_schema"))
}) {}

/** A prior turn of the conversation. */
export class HistoryTurn extends Schema.Class<HistoryTurn>("HistoryTurn")({
  request: Schema.String,
  response: Schema.String,
  session_data: Optional(JsonObject)
}) {}

const processFields = {
  /**
   * A V0 graph's per input node id, its input fields (`{"input_node": {"input-text": "…"}}`); an
   * agents-service variant's flat, `{input_name: value}`.
   */
  inputs: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  history: Optional(Schema.Array(HistoryTurn)),
  operation_metadata: Optional(JsonObject),
  /** Keyed by knowledge-base node id. */
  overrides: Optional(Schema.Record({ key: Schema.String, value: ProcessOverrides })),
  stream: Optional(Schema.Boolean)
}

export class ProcessApplicationVariant extends Schema.Class<ProcessApplicationVariant>("ProcessApplicationVariant")(processFields) {}

export class ProcessApplicationGraph extends Schema.Class<ProcessApplicationGraph>("ProcessApplicationGraph")({
  nodes: Schema.Array(ApplicationNode),
  edges: Schema.Array(ApplicationEdge),
  version: Schema.Literal("V0"),
  ...processFields
}) {}

/** What a process answers: the output node's fields, `session_data`, and the recorded interaction's id. */
export const ProcessResult = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "ApplicationProcessResult"
})

// ---------------------------------------------------------------------------------------------
// The node-schema registry

export const ApplicationSchemaVersion = Schema.Literal("OFFLINE", "V0", "AGENTS_SERVICE").annotations({
  identifier: "ApplicationSchemaVersion"
})

export const ApplicationSchemaQuery = Schema.Struct({ version: ApplicationSchemaVersion })

export const NodeValueType = Schema.Literal(
  "TEXT", "STRING_ARRAY", "NUMBER", "BOOL", "CHUNK_ARRAY", "DOCUMENT_ARRAY", "KNOWLEDGE_BASE_ID",
  "KNOWLEDGE_BASE_ID_ARRAY", "COMPLETION_MODEL_ID"
).annotations({ identifier: "NodeValueType" })

export class NumberConfigField extends Schema.Class<NumberConfigField>("NumberConfigField")({
  type: Schema.Literal("NUMBER"),
  docs: Schema.String,
  label: Schema.String,
  validation_rules: Schema.Struct({ max_value: Schema.Number, min_value: Schema.Number, required: Schema.Boolean }),
  default: Schema.NullOr(Schema.Number),
  is_advanced_configuration: Schema.Boolean,
  is_float: Schema.Boolean
}) {}

export class TextConfigField extends Schema.Class<TextConfigField>("TextConfigField")({
  type: Schema.Literal("TEXT"),
  docs: Schema.String,
  label: Schema.String,
  validation_rules: Schema.Struct({ required: Schema.Boolean, regex_pattern: Schema.NullOr(Schema.String) }),
  is_advanced_configuration: Schema.Boolean
}) {}

export class BoolConfigField extends Schema.Class<BoolConfigField>("BoolConfigField")({
  type: Schema.Literal("BOOL"),
  docs: Schema.String,
  label: Schema.String,
  validation_rules: Schema.Struct({ required: Schema.Boolean }),
  default: Schema.NullOr(Schema.Boolean),
  is_advanced_configuration: Schema.Boolean
}) {}

export const ConfigField = Schema.Union(NumberConfigField, TextConfigField, BoolConfigField).annotations({ identifier: "ConfigField" })
export type ConfigField = typeof ConfigField.Type

export class NodeInput extends Schema.Class<NodeInput>("NodeInput")({
  name: Schema.String,
  label: Schema.String,
  docs: Schema.String,
  required: Schema.Boolean,
  type: NodeValueType,
  is_hidden: Schema.Boolean
}) {}

export class NodeOutput extends Schema.Class<NodeOutput>("NodeOutput")({
  name: Schema.String,
  label: Schema.String,
  docs: Schema.String,
  type: NodeValueType
}) {}

export class NodeSchema extends Schema.Class<NodeSchema>("NodeSchema")({
  configuration: Schema.Record({ key: Schema.String, value: ConfigField }),
  inputs: Schema.Record({ key: Schema.String, value: NodeInput }),
  outputs: Schema.Record({ key: Schema.String, value: NodeOutput })
}) {}

export const NodeTag = Schema.Literal("INPUT_NODE", "OUTPUT_NODE", "RAG_NODE").annotations({ identifier: "NodeTag" })

/** One node kind the kit runs. `nodeSchema` is camelCase on the wire, as the platform's. */
export class ApplicationNodeSchemaRegistryRecord
  extends Schema.Class<ApplicationNodeSchemaRegistryRecord>("ApplicationNodeSchemaRegistryRecord")({
    id: Schema.String,
    name: Schema.String,
    nodeSchema: NodeSchema,
    tags: Schema.Array(NodeTag),
    type: Schema.String,
    version: ApplicationSchemaVersion
  })
{}

/** The registry: node kinds by their `application_node_schema_id`. */
export const ApplicationSchemas = Schema.Record({ key: Schema.String, value: ApplicationNodeSchemaRegistryRecord }).annotations({
  identifier: "ApplicationSchemaRetrieveResponse"
})
