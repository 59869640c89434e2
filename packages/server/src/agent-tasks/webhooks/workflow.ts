/**
 * The retries of a webhook delivery whose first attempt failed, a durable workflow (docs/agent-
 * tasks.md "Webhook triggers", docs/engine.md): keyed by the delivery, attempts 2 to
 * `maxAttempts`, each after its wait (`backoffMillis`: a durable sleep) and each a step that
 * records itself; the first that reaches the agent ends it, and the last gives up (`failed`).
 * Started by the forward route, and at the engine's start for the deliveries still retrying.
 */
import { Activity, DurableClock, Workflow } from "@effect/workflow"
import { Effect, Layer, Schema } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../../engine/Lifecycles.js"
import { startOnBoot } from "../../engine/startOnBoot.js"
import { AgentsRepo } from "../agents/AgentsRepo.js"
import { backoffMillis, maxAttempts, WebhookDeliveries } from "./deliveries.js"
import { WebhooksRepo } from "./WebhooksRepo.js"

export const WebhookDelivery = Workflow.make({
  name: "WebhookDelivery",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const WorkflowLive = WebhookDelivery.toLayer(
  Effect.fn("WebhookDelivery")(function*(delivery) {
    const deliveries = yield* WebhookDeliveries
    for (let n = 2; n <= maxAttempts; n++) {
      yield* DurableClock.sleep({ name: `wait-${n}`, duration: backoffMillis(n) })
      const ended = yield* Activity.make({ name: `attempt-${n}`, success: Schema.Boolean, execute: deliveries.retry(delivery.id, n) })
      if (ended) return
    }
  })
)

/** The workflow, and the start of every delivery still retrying when the engine starts. Needs `WebhookDeliveries`. */
export const WebhookDeliveryLive = startOnBoot(
  "webhook deliveries",
  Effect.flatMap(WebhooksRepo, (repo) => repo.retrying),
  (delivery) => WebhookDelivery.execute(delivery, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/** The family's workflows, for the engine (../../workflows.ts). Needs the application's `SecretBox`. */
export const WebhookDeliveryWorkflows = {
  workflows: { WebhookDelivery },
  layer: WebhookDeliveryLive.pipe(
    Layer.provide(WebhookDeliveries.DefaultWithoutDependencies),
    Layer.provide([WebhooksRepo.Default, AgentsRepo.Default])
  )
} satisfies FamilyWorkflows
