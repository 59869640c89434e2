/**
 * Webhook triggers (docs/agent-tasks.md "Webhook triggers"), agentex's: a GitHub or Slack key of
 * an agent (`POST /agent_api_keys/webhook-trigger`, its secret sealed and answered once), and the
 * route its deliveries come in through (`GET|POST /agents/forward/name/{agent_name}/{path}`).
 *
 * The route has no API key: a delivery proves itself, in agentex's order (a Slack URL
 * verification first, answered before any check; then an agent key, a GitHub signature, a Slack
 * signature; none is a 403). Agent names are unique per account only, so a delivery is matched to
 * the agent whose key verifies it: a key (and its secret) belongs to one agent of one account,
 * and no key of one account's agent reaches another's. The request then goes on to the agent's
 * ACP server unchanged, and the agent's answer comes back as it is (deliveries.ts: recorded, and
 * retried on the engine when it failed). Raw handlers: the body's bytes are what is signed and
 * what is forwarded.
 */
import { HttpServerResponse } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform"
import { NotFound, WebhookTrigger } from "@platform-kit/schema"
import { Clock, Effect, Either, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import { accountForWrite } from "../../auth/access.js"
import { PublicUrl } from "../../config.js"
import { SecretBox } from "../../credentials/SecretBox.js"
import { Lifecycles } from "../../engine/Lifecycles.js"
import type { ImplementGroup } from "../../http/groups.js"
import { Ids, nowIso } from "../../platform/Ids.js"
import { AgentsRepo } from "../agents/AgentsRepo.js"
import { WebhookDeliveries } from "./deliveries.js"
import {
  forwardedHeaders,
  githubSignature,
  sameSignature,
  slackSignature,
  slackWindowSeconds,
  webhookPath
} from "./forward.js"
import { type WebhookKeyRow, WebhooksRepo } from "./WebhooksRepo.js"

export const AgentWebhooksHttp = (group: ImplementGroup) =>
  group("agentWebhooks", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const agents = yield* AgentsRepo
    const box = yield* SecretBox
    const publicUrl = yield* Effect.orDie(PublicUrl)

    return handlers.handle("createTrigger", ({ payload }) =>
      Effect.gen(function*() {
        const accountId = yield* accountForWrite(undefined, ["header", "x-selected-account-id"])
        const agent = yield* agents.findByName(payload.agent_name, accountId)
        if (Option.isNone(agent)) return yield* Effect.fail(new NotFound({ detail: `Agent ${payload.agent_name} not found` }))
        const source = payload.source ?? "github"
        const secret = payload.secret != null && payload.secret !== "" ? payload.secret : Crypto.randomBytes(32).toString("hex")
        const id = yield* Effect.flatMap(Ids, (ids) => ids.make)
        yield* repo.insertKey({
          id,
          account_id: accountId,
          agent_id: agent.value.id,
          name: payload.name,
          source,
          secret_sealed: yield* box.encrypt(secret, id),
          created_at: yield* nowIso
        })
        const path = webhookPath(payload.agent_name, payload.forward_path.replace(/^\//, ""))
        const base = payload.base_url ?? Option.getOrNull(publicUrl)
        return new WebhookTrigger({
          agent_name: payload.agent_name,
          key_id: id,
          name: payload.name,
          secret,
          source,
          webhook_path: path,
          webhook_url: base === null ? null : `${base.replace(/\/+$/, "")}${path}`
        }, true)
      }))
  })
).pipe(Layer.provide([WebhooksRepo.Default, AgentsRepo.Default, SecretBox.Live]))

/** An answer of the route's own: `{detail}` (agentex's webhook ingress answers so). */
const refused = (status: number, detail: string) => HttpServerResponse.unsafeJson({ detail }, { status })

/** A refusal, carried to the end of the handler as its answer. */
class Refused {
  readonly _tag = "Refused"
  constructor(readonly response: HttpServerResponse.HttpServerResponse) {}
}
const refuse = (status: number, detail: string) => Effect.fail(new Refused(refused(status, detail)))

/** The body as JSON: `{ value }`, or undefined when it is not JSON. */
const parsedJson = (body: Buffer): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(body.toString("utf8")) }
  } catch {
    return undefined
  }
}

/** The body as a JSON object, or undefined for a body that is not one. */
const jsonObject = (body: Buffer): Record<string, unknown> | undefined => {
  const value = parsedJson(body)?.value
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}

/** The key an `Authorization: AgentKey <key>` names (the scheme in any case). */
const agentKeyOf = (authorization: string | undefined) => {
  const match = /^\s*agentkey\s+(\S+)\s*$/i.exec(authorization ?? "")
  return match?.[1]
}

/** The path after `/agents/forward/name/{agent_name}/`, and the query, as the request sent them. */
const forwardedPath = (url: string) => {
  const at = url.indexOf("?")
  const path = at === -1 ? url : url.slice(0, at)
  const query = at === -1 ? "" : url.slice(at)
  return path.split("/").slice(5).join("/") + query
}

export const AgentWebhookForwardHttp = (group: ImplementGroup) =>
  group("agentWebhookForward", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const agents = yield* AgentsRepo
    const box = yield* SecretBox
    const deliveries = yield* WebhookDeliveries
    const lifecycles = yield* Lifecycles

    /** The key of `keys` whose secret passes `verifies`, in account order. */
    const verified = (keys: ReadonlyArray<WebhookKeyRow>, verifies: (secret: string) => boolean) =>
      Effect.gen(function*() {
        for (const key of keys) if (verifies(yield* box.decrypt(key.secret_sealed, key.id))) return key
        return undefined
      })

    const forward = (agentName: string, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const named = yield* repo.agentsNamed(agentName)
        const reachable: Array<{ id: string; account_id: string; acpUrl: string }> = []
        for (const agent of named) {
          const connection = yield* agents.connection(agent.id)
          if (connection.acpUrl !== null) reachable.push({ ...agent, acpUrl: connection.acpUrl })
        }
        if (reachable.length === 0) return yield* refuse(404, `Agent ${agentName} not found or has no ACP URL.`)
        const ids = reachable.map((agent) => agent.id)
        const body = Buffer.from(yield* Effect.orDie(request.arrayBuffer))
        const header = (name: string) => request.headers[name]
        const timestamp = header("x-slack-request-timestamp")

        // Slack's URL verification: the challenge answered before any signature is checked
        if (timestamp !== undefined) {
          const parsed = parsedJson(body)
          if (parsed === undefined) return yield* refuse(400, "The request body is not JSON.")
          const json = jsonObject(body)
          if (json !== undefined && "challenge" in json) {
            return HttpServerResponse.text(String(json.challenge), { contentType: "text/plain" })
          }
        }

        let key: WebhookKeyRow | undefined
        const agentKey = header("x-agent-api-key") ?? agentKeyOf(header("authorization"))
        if (agentKey !== undefined) {
          key = yield* verified(yield* repo.keysOf(ids, "external"), (secret) => sameSignature(secret, agentKey))
          if (key === undefined) return yield* refuse(401, "Invalid agent API key.")
        } else if (header("x-hub-signature-256") !== undefined) {
          const json = jsonObject(body)
          const repository = json?.repository
          const fullName = typeof repository === "object" && repository !== null ? (repository as Record<string, unknown>).full_name : undefined
          if (json === undefined || Object.keys(json).length === 0 || typeof fullName !== "string") {
            return yield* refuse(400, "A GitHub webhook payload needs repository.full_name.")
          }
          const keys = yield* repo.keysOf(ids, "github", fullName)
          if (keys.length === 0) return yield* refuse(404, `No GitHub webhook key named '${fullName}' for agent ${agentName}.`)
          const given = header("x-hub-signature-256")!
          key = yield* verified(keys, (secret) => sameSignature(githubSignature(secret, body), given))
          if (key === undefined) return yield* refuse(401, "Invalid GitHub webhook signature")
        } else if (header("x-slack-signature") !== undefined) {
          if (timestamp === undefined) return yield* refuse(401, "Missing X-Slack-Request-Timestamp.")
          if (!/^\s*[+-]?\d+\s*$/.test(timestamp)) return yield* refuse(400, "Slack webhook request has bad timestamp.")
          const now = (yield* Clock.currentTimeMillis) / 1000
          if (Math.abs(now - Number(timestamp)) > slackWindowSeconds) return yield* refuse(400, "Slack webhook request has bad timestamp.")
          const appId = jsonObject(body)?.api_app_id
          if (typeof appId !== "string") return yield* refuse(400, "A Slack webhook payload needs api_app_id.")
          const keys = yield* repo.keysOf(ids, "slack", appId)
          if (keys.length === 0) return yield* refuse(404, `No Slack webhook key named '${appId}' for agent ${agentName}.`)
          const given = header("x-slack-signature")!
          key = yield* verified(keys, (secret) => sameSignature(slackSignature(secret, timestamp.trim(), body), given))
          if (key === undefined) return yield* refuse(401, "Invalid Slack webhook signature")
        } else {
          return yield* refuse(403, "Missing authentication for forward request.")
        }

        const agent = reachable.find((each) => each.id === key.agent_id)!
        const id = yield* Effect.flatMap(Ids, (made) => made.make)
        const { outcome, retrying } = yield* deliveries.deliver(id, agent, key.id, agent.acpUrl, {
          method: request.method,
          path: forwardedPath(request.url),
          headers: forwardedHeaders(request.headers),
          body
        })
        if (retrying) yield* lifecycles.start({ workflow: "WebhookDelivery", id, account_id: agent.account_id })
        if (Either.isLeft(outcome)) return refused(502, `The agent ${agentName} could not be reached: ${outcome.left.message}`)
        const answer = outcome.right
        return HttpServerResponse.uint8Array(answer.body, {
          status: answer.status,
          headers: answer.headers,
          ...(answer.contentType === undefined ? {} : { contentType: answer.contentType })
        })
      }).pipe(Effect.catchIf((error): error is Refused => error instanceof Refused, (refusal) => Effect.succeed(refusal.response)))

    return handlers
      .handleRaw("forwardPost", ({ path, request }) => forward(path.agent_name, request))
      .handleRaw("forwardGet", ({ path, request }) => forward(path.agent_name, request))
  })
).pipe(Layer.provide(
  WebhookDeliveries.DefaultWithoutDependencies.pipe(Layer.provideMerge(Layer.mergeAll(WebhooksRepo.Default, AgentsRepo.Default, SecretBox.Live)))
))
