/**
 * Agent runtime deployments (v5; docs/agent-runtime.md). A deployment runs one build of an agent.
 * Builds are not stored here: `build_id` is kept as given, and the build's agent name comes with
 * the create (`agent_name`) so lists can filter by it.
 */
import { Schema } from "effect"
import { DateTimeString, Id, Identity, NonEmptyString, Nullable, Optional, V5PageQuery } from "./common.js"

/** One event in the life of a deployment (`Normal`/`Warning`, a CamelCase reason, a sentence). */
export class AgentRuntimeDeployEvent extends Schema.Class<AgentRuntimeDeployEvent>("AgentRuntimeDeployEvent")({
  type: Schema.String,
  reason: Schema.String,
  message: Schema.String,
  timestamp: DateTimeString
}) {}

/**
 * A deployment's status (the spec leaves the set open; docs/agent-runtime.md): a create answers
 * `PENDING`; its lifecycle moves it to `DEPLOYING`, then `READY`; a ready deployment ends
 * `SUPERSEDED` (a newer one of its preview label became ready), `EXPIRED` (past `expires_at`) or
 * `DELETED`. `FAILED` is for fault rules.
 */
export const AgentRuntimeDeploymentStatus = Schema.Literal(
  "PENDING",
  "DEPLOYING",
  "READY",
  "SUPERSEDED",
  "EXPIRED",
  "DELETED",
  "FAILED"
).annotations({ identifier: "AgentRuntimeDeploymentStatus" })
export type AgentRuntimeDeploymentStatus = typeof AgentRuntimeDeploymentStatus.Type

export class AgentRuntimeDeployment extends Schema.Class<AgentRuntimeDeployment>("AgentRuntimeDeployment")({
  id: Id,
  namespace: Nullable(Schema.String),
  manifest_file: Nullable(Schema.String),
  environment_config: Nullable(Schema.String),
  status: AgentRuntimeDeploymentStatus,
  account_id: Id,
  build_id: Schema.String,
  /**
   * The agent name of the build, as given on create (not a field of the platform's deployment;
   * what the `agent_name` filter matches); `null` when the create did not name it.
   */
  agent_name: Nullable(Schema.String),
  helm_release_name: Nullable(Schema.String),
  preview_label: Nullable(Schema.String),
  created_at: DateTimeString,
  expires_at: Nullable(DateTimeString),
  created_by: Identity,
  object: Schema.Literal("agent_runtime_cloud_deploy"),
  deploy_events: Schema.Array(AgentRuntimeDeployEvent)
}) {}

/** `POST /v5/agent-runtime/deployments`. */
export class CreateAgentRuntimeDeployment
  extends Schema.Class<CreateAgentRuntimeDeployment>("CreateAgentRuntimeDeployment")({
    build_id: NonEmptyString,
    /** Optional: a deployment without it is listed, but never matches an `agent_name` filter. */
    agent_name: Optional(NonEmptyString),
    namespace: Optional(Schema.String),
    manifest_file: Optional(Schema.String),
    environment_config: Optional(Schema.String),
    helm_release_name: Optional(Schema.String),
    preview_label: Optional(Schema.String),
    expires_at: Optional(DateTimeString),
    account_id: Optional(Id)
  })
{}

/**
 * `GET /v5/agent-runtime/deployments`: cursor page (sort by `created_at` or `agent_name`),
 * `account_id`, and exact-match filters `build_id`, `agent_name`, `preview_label`.
 */
export const AgentRuntimeDeploymentListQuery = Schema.Struct({
    ...V5PageQuery(["created_at", "agent_name"]),
    account_id: Schema.optionalWith(Id, { exact: true }),
    build_id: Schema.optionalWith(Schema.String, { exact: true }),
    agent_name: Schema.optionalWith(Schema.String, { exact: true }),
    preview_label: Schema.optionalWith(Schema.String, { exact: true })
  })
