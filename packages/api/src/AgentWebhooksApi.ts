/**
 * Agentex's webhook triggers (docs/agent-tasks.md "Webhook triggers"): the creation of a GitHub or
 * Slack webhook key of an agent (authenticated as every endpoint), and the route deliveries come
 * in through, which authenticates itself (the sender's signature or agent key), not by the kit's
 * API key, and forwards them to the agent.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { BadGateway, Conflict, CreateWebhookTrigger, NotFound, Unauthorized, WebhookBadRequest, WebhookTrigger } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class AgentWebhooksApi extends HttpApiGroup.make("agentWebhooks")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("createTrigger", "/agent_api_keys/webhook-trigger")
      .setPayload(CreateWebhookTrigger)
      .addSuccess(WebhookTrigger)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create a webhook trigger")
      .annotate(
        OpenApi.Description,
        "A GitHub or Slack webhook key of the account's agent `agent_name`, named by the repository's `full_name` (GitHub) or the Slack app's `api_app_id`; answers the URL to give the sender and the signing `secret`, answered only here (stored sealed). 409 for a second key of the same agent, name and source."
      )
  )
  .annotate(OpenApi.Title, "Agent webhook triggers")
  .annotate(OpenApi.Description, "Webhook keys of agents (agentex): GitHub and Slack deliveries forwarded to the agent.")
{}

const ForwardPath = Schema.Struct({ agent_name: Schema.String })

const forwardDescription =
  "A webhook delivery for the agent (no API key: it authenticates itself). A Slack URL verification (`X-Slack-Request-Timestamp` and a JSON body with `challenge`) is answered the challenge as text. Otherwise, in this order: `X-Agent-API-Key` or `Authorization: AgentKey …` (an external key of the agent), `x-hub-signature-256` (GitHub: HMAC-SHA256 of the raw body with the key of `repository.full_name`), `x-slack-signature` (Slack v0, the timestamp within 300 s, the key of `api_app_id`); none: 403. Then the request goes to `{acp_url}/{path}` with its query, method, raw body and headers, and the agent's answer is answered as it is (502 when the agent cannot be reached; a failure of the agent is retried in the background)."

/** The answer of a forward is the agent's, whatever it is. */
const AgentAnswer = Schema.Unknown

export class AgentWebhookForwardApi extends HttpApiGroup.make("agentWebhookForward")
  .add(
    HttpApiEndpoint.post("forwardPost", "/agents/forward/name/:agent_name/*")
      .setPath(ForwardPath)
      .addSuccess(AgentAnswer)
      .addError(WebhookBadRequest)
      .addError(Unauthorized)
      .addError(NotFound)
      .addError(BadGateway)
      .annotate(OpenApi.Summary, "Deliver a webhook to an agent")
      .annotate(OpenApi.Description, forwardDescription)
  )
  .add(
    HttpApiEndpoint.get("forwardGet", "/agents/forward/name/:agent_name/*")
      .setPath(ForwardPath)
      .addSuccess(AgentAnswer)
      .addError(WebhookBadRequest)
      .addError(Unauthorized)
      .addError(NotFound)
      .addError(BadGateway)
      .annotate(OpenApi.Summary, "Deliver a webhook to an agent (GET)")
      .annotate(OpenApi.Description, forwardDescription)
  )
  .annotate(OpenApi.Title, "Agent webhook deliveries")
  .annotate(OpenApi.Description, "Where GitHub and Slack send an agent's webhooks: verified, then forwarded to the agent's ACP server.")
{}
