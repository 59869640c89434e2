/**
 * Agentex's webhook triggers (docs/agent-tasks.md "Webhook triggers"): a GitHub or Slack webhook
 * key of an agent, whose deliveries the kit verifies and forwards to the agent's ACP server under
 * `/agents/forward/name/{agent_name}/{path}`.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Nullable, Optional } from "./common.js"
import { errorTag } from "./errors.js"

/** The kinds of agent API keys agentex knows; a webhook trigger is `github` or `slack`. */
export const AgentApiKeySource = Schema.Literal("internal", "external", "github", "slack").annotations({
  identifier: "AgentApiKeySource"
})
export type AgentApiKeySource = typeof AgentApiKeySource.Type

/** Control characters (C0, DEL, C1): not in a forward path. */
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/

/**
 * `POST /agent_api_keys/webhook-trigger`. `source` defaults to `github`; only `github` and
 * `slack` are accepted. `secret` is generated for GitHub when absent (64 hex characters) and
 * required for Slack (the app's signing secret). A leading `/` of `forward_path` is dropped.
 */
export const CreateWebhookTrigger = Schema.Struct({
  agent_name: Schema.String,
  forward_path: Schema.String,
  name: Schema.String.pipe(Schema.minLength(1)),
  source: Optional(AgentApiKeySource),
  secret: Optional(Schema.String),
  base_url: Optional(Schema.String)
}).pipe(
  Schema.filter((body) => {
    const issues: Array<{ path: ReadonlyArray<string>; message: string }> = []
    if (body.source !== undefined && body.source !== null && body.source !== "github" && body.source !== "slack") {
      issues.push({ path: ["source"], message: "source must be 'github' or 'slack' for a webhook trigger." })
    }
    if (body.source === "slack" && (body.secret === undefined || body.secret === null || body.secret === "")) {
      issues.push({ path: ["secret"], message: "A Slack webhook trigger needs the Slack app's signing secret." })
    }
    if (controlCharacters.test(body.forward_path)) {
      issues.push({ path: ["forward_path"], message: "forward_path must not contain control characters." })
    }
    return issues
  })
).annotations({ identifier: "CreateWebhookTrigger" })
export type CreateWebhookTrigger = typeof CreateWebhookTrigger.Type

/** What a trigger's creation answers: the key's id and its `secret`, answered only here. */
export class WebhookTrigger extends Schema.Class<WebhookTrigger>("WebhookTrigger")({
  agent_name: Schema.String,
  key_id: Schema.String,
  name: Schema.String,
  secret: Schema.String,
  source: AgentApiKeySource,
  webhook_path: Schema.String,
  webhook_url: Nullable(Schema.String)
}) {}

/** 400 of the forward route: a delivery it cannot read (not JSON, a field missing, a bad Slack timestamp). */
export class WebhookBadRequest extends Schema.Class<WebhookBadRequest>("WebhookBadRequest")(
  { _tag: errorTag("WebhookBadRequest"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 400, description: "A webhook delivery the route cannot read" })
) {}
