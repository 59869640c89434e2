/**
 * Deliveries of webhooks to agents (docs/agent-tasks.md "Webhook triggers"): each attempt is
 * recorded (when, the agent's status, the latency, the error). The first is made while the sender
 * waits, and its answer is the sender's; when it fails (the agent cannot be reached, or answers a
 * 5xx) the delivery is kept, its request sealed (its headers may carry a key), and retried on the
 * engine (workflow.ts): `maxAttempts` in all, `backoff` apart. A retry goes to where the agent is
 * now (its production deployment may have moved) with the request as it first came.
 */
import { Clock, Effect, Either, Schema } from "effect"
import { SecretBox } from "../../credentials/SecretBox.js"
import { nowIso } from "../../platform/Ids.js"
import { AgentsRepo } from "../agents/AgentsRepo.js"
import { type AgentAnswer, AgentUnreachable, callAgent, failed, type ForwardRequest } from "./forward.js"
import { type DeliveryAttempt, WebhooksRepo } from "./WebhooksRepo.js"

/** Attempts at a delivery in all, the first included. */
export const maxAttempts = 5

/** The wait before attempt `n` (2 and on): 1 s, then doubling (1, 2, 4, 8 s: the last attempt 15 s after the first). */
export const backoffMillis = (n: number) => 1000 * 2 ** (n - 2)

/** A request as sealed while its delivery is retried. */
const SealedRequest = Schema.parseJson(Schema.Struct({
  method: Schema.String,
  path: Schema.String,
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  body: Schema.String
}))

/** What an attempt wrote about itself: the attempt's row, from a call's outcome. */
const attemptRow = (attempt: number, startedMs: number, endedMs: number, outcome: Either.Either<AgentAnswer, AgentUnreachable>): DeliveryAttempt => ({
  attempt,
  started_at: new Date(startedMs).toISOString(),
  status_code: Either.isRight(outcome) ? outcome.right.status : null,
  latency_ms: endedMs - startedMs,
  error: Either.isLeft(outcome)
    ? outcome.left.message
    : outcome.right.status >= 500
    ? `The agent answered ${outcome.right.status}`
    : null
})

export class WebhookDeliveries extends Effect.Service<WebhookDeliveries>()("@platform-kit/server/WebhookDeliveries", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const agents = yield* AgentsRepo
    const box = yield* SecretBox

    /** One call to the agent, timed. */
    const timedCall = (acpUrl: string, request: ForwardRequest) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const outcome = yield* Effect.either(callAgent(acpUrl, request))
        return { outcome, started, ended: yield* Clock.currentTimeMillis }
      })

    /**
     * The first attempt of a delivery to agent `agent` at `acpUrl`, recorded: the agent's answer
     * (or why it could not be reached), and whether the delivery is now retried (a new delivery
     * of `id` whose lifecycle the caller starts).
     */
    const deliver = (
      id: string,
      agent: { readonly id: string; readonly account_id: string },
      keyId: string | null,
      acpUrl: string,
      request: ForwardRequest
    ) =>
      Effect.gen(function*() {
        const { ended, outcome, started } = yield* timedCall(acpUrl, request)
        const retrying = failed(Either.isLeft(outcome) ? outcome.left : outcome.right)
        const sealed = retrying
          ? yield* box.encrypt(
            Schema.encodeSync(SealedRequest)({ ...request, headers: { ...request.headers }, body: request.body.toString("base64") }),
            id
          )
          : null
        yield* repo.insertDelivery({
          id,
          account_id: agent.account_id,
          agent_id: agent.id,
          key_id: keyId,
          method: request.method,
          path: request.path,
          status: retrying ? "retrying" : "succeeded",
          attempts: 1,
          request_sealed: sealed,
          created_at: new Date(started).toISOString()
        }, attemptRow(1, started, ended, outcome))
        return { outcome, retrying }
      })

    /**
     * Attempt `n` of delivery `id` (a step of its workflow): answers whether the delivery has
     * ended (delivered, given up after `maxAttempts`, or ended before: a step run again).
     */
    const retry = (id: string, n: number) =>
      Effect.gen(function*() {
        const delivery = yield* repo.delivery(id)
        if (delivery === undefined || delivery.status !== "retrying" || delivery.request_sealed === null) return true
        if (delivery.attempts >= n) return false
        const sealed = Schema.decodeSync(SealedRequest)(yield* box.decrypt(delivery.request_sealed, id))
        const request: ForwardRequest = { ...sealed, body: Buffer.from(sealed.body, "base64") }
        const connection = yield* agents.connection(delivery.agent_id)
        const { ended, outcome, started } = connection.acpUrl === null
          ? yield* Effect.map(Clock.currentTimeMillis, (now) => ({
            outcome: Either.left(new AgentUnreachable({ message: "The agent has no ACP URL" })),
            started: now,
            ended: now
          }))
          : yield* timedCall(connection.acpUrl, request)
        const delivered = !failed(Either.isLeft(outcome) ? outcome.left : outcome.right)
        const status = delivered ? "succeeded" : n >= maxAttempts ? "failed" : "retrying"
        yield* repo.recordAttempt(delivery, attemptRow(n, started, ended, outcome), status, yield* nowIso)
        return status !== "retrying"
      })

    return { deliver, retry } as const
  }),
  dependencies: [WebhooksRepo.Default, AgentsRepo.Default]
}) {}
