/**
 * Agent deployments and the deployment history of agentex (docs/agent-tasks.md "Deployments"):
 * a deployment is one running version of an agent (its image, its ACP server once it registers),
 * promoted to be the one the agent's RPC reaches; the history logs what went live.
 */
import { Schema } from "effect"
import { AgentexPage } from "./agent-tasks.js"
import { DateTimeString, Id, JsonObject, NonEmptyString, Nullable, Optional } from "./common.js"

/** A deployment's status: `Pending` until its ACP server registers naming it, then `Ready` (nothing sets `Failed`, as agentex). */
export const AgentDeploymentStatus = Schema.Literal("Pending", "Ready", "Failed").annotations({ identifier: "AgentDeploymentStatus" })
export type AgentDeploymentStatus = typeof AgentDeploymentStatus.Type

/**
 * A deployment as answered (AX `types/agents/deployment_retrieve_response.py`; the create, list
 * and promote answers are the same): every field present, `null` where none.
 */
export class AgentDeployment extends Schema.Class<AgentDeployment>("AgentDeployment")({
  id: Id,
  agent_id: Id,
  docker_image: Schema.String,
  /** True for at most one deployment of an agent: the one its RPC reaches. */
  is_production: Schema.Boolean,
  status: AgentDeploymentStatus,
  /** Filled in when the deployment's ACP server registers. */
  acp_url: Nullable(Schema.String),
  created_at: DateTimeString,
  /** Set by a delete (a soft delete). */
  expires_at: Nullable(DateTimeString),
  helm_release_name: Nullable(Schema.String),
  /** Set by a promote. */
  promoted_at: Nullable(DateTimeString),
  registration_metadata: Nullable(JsonObject),
  sgp_deploy_id: Nullable(Schema.String)
}) {}

/** `POST /agents/{agent_id}/deployments`: a new deployment, `Pending`. */
export class CreateAgentDeployment extends Schema.Class<CreateAgentDeployment>("AgentDeploymentCreate")({
  /** The image's full URI; never changed afterwards. */
  docker_image: NonEmptyString.pipe(Schema.maxLength(2000)),
  helm_release_name: Optional(Schema.String),
  /** Build metadata (`commit_hash`, `branch_name`, `author_name`, `author_email`, `build_timestamp`, …). */
  registration_metadata: Optional(JsonObject),
  sgp_deploy_id: Optional(Schema.String)
}) {}

/** `GET /agents/{agent_id}/deployments`: a page of the agent's deployments not deleted (a bare array), newest first. */
export const AgentDeploymentsListQuery = Schema.Struct({
  ...AgentexPage(["created_at"])
})

// ---------------------------------------------------------------------------------------------
// Deployment history

/** An entry of the deployment history (AX `types/deployment_history.py`): every field required. */
export class DeploymentHistory extends Schema.Class<DeploymentHistory>("DeploymentHistory")({
  id: Id,
  agent_id: Id,
  author_email: Schema.String,
  author_name: Schema.String,
  branch_name: Schema.String,
  build_timestamp: DateTimeString,
  commit_hash: Schema.String,
  /** When what it records went live (docs/agent-tasks.md "Deployments"). */
  deployment_timestamp: DateTimeString
}) {}

/** `GET /deployment-history`: one agent's entries (by `agent_id` or `agent_name`, exactly one), a bare array. */
export const DeploymentHistoryListQuery = Schema.Struct({
  ...AgentexPage(["deployment_timestamp", "build_timestamp"]),
  agent_id: Schema.optionalWith(Id, { exact: true }),
  agent_name: Schema.optionalWith(Schema.String, { exact: true })
})
