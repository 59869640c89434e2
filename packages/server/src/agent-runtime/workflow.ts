/**
 * The lifecycle of an agent runtime deployment, a durable workflow (docs/agent-runtime.md,
 * docs/engine.md): `PENDING`, then after a simulated step `DEPLOYING` (the kit installs nothing:
 * provisioning is simulated), after another `READY`, superseding the older deployments of its
 * preview label. A ready deployment with `expires_at` waits for it on a durable timer (real time,
 * whatever the progression) and is then `EXPIRED`. Every step moves the deployment only from the
 * status it expects, with its `deploy_events` entry, in one transaction holding its row: a step run
 * again moves nothing, and a deployment deleted or superseded meanwhile ends the workflow.
 */
import { Activity, DurableClock, Workflow } from "@effect/workflow"
import { AgentRuntimeDeployment } from "@platform-kit/schema"
import { Clock, Duration, Effect, Layer, Option, Schema } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { simulatedStep } from "../engine/simulatedStep.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { AgentRuntimeRepo } from "./AgentRuntimeRepo.js"
import { deployingEvent, expiredEvent, readyEvent, failedEvent } from "./deployEvents.js"

export const AgentRuntimeLifecycle = Workflow.make({
  name: "AgentRuntimeDeployment",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const deploy = Effect.fn("AgentRuntimeDeployment")(function*(entity: LifecycleEntity) {
  const repo = yield* AgentRuntimeRepo
  /** The deployment's status after a step (none when it is gone). */
  const statusAfter = (step: Effect.Effect<Option.Option<AgentRuntimeDeployment>>) =>
    Effect.map(step, Option.match({ onNone: () => "GONE", onSome: (deployment) => deployment.status }))

  /**
   * The deployment `FAILED` from `from`, with the fault rule's reason as a `Warning` event; answers
   * whether the lifecycle ends there (failed, or gone). A step replayed after the controls changed
   * may bring a fault to a deployment already past `from`: that one goes on its way.
   */
  const failed = (from: "PENDING" | "DEPLOYING", reason: string) =>
    Activity.make({
      name: "failed",
      success: Schema.Boolean,
      execute: Effect.map(
        repo.advance(entity, from, (current, now) =>
          new AgentRuntimeDeployment({ ...current, status: "FAILED", deploy_events: [...current.deploy_events, failedEvent(reason, now)] }, true)),
        (found) => Option.isNone(found) || found.value.status === "FAILED" || found.value.status === "DELETED"
      )
    })

  const scheduleFault = yield* simulatedStep("schedule", "agent_runtime_deployment", entity)
  if (scheduleFault !== null && (yield* failed("PENDING", scheduleFault))) return
  const deploying = yield* Activity.make({
    name: "deploying",
    success: Schema.String,
    execute: statusAfter(repo.advance(entity, "PENDING", (pending, now) =>
      new AgentRuntimeDeployment({
        ...pending,
        status: "DEPLOYING",
        deploy_events: [...pending.deploy_events, deployingEvent(pending, now)]
      }, true)))
  })
  if (deploying !== "DEPLOYING") return
  const rolloutFault = yield* simulatedStep("rollout", "agent_runtime_deployment", entity)
  if (rolloutFault !== null && (yield* failed("DEPLOYING", rolloutFault))) return
  // when it is READY after the step: its expires_at (or "never"); else nothing to wait for
  const expiry = yield* Activity.make({
    name: "ready",
    success: Schema.NullOr(Schema.String),
    execute: Effect.map(
      repo.advance(entity, "DEPLOYING", (deploying, now) =>
        new AgentRuntimeDeployment({ ...deploying, status: "READY", deploy_events: [...deploying.deploy_events, readyEvent(now)] }, true)),
      (found) => (Option.isSome(found) && found.value.status === "READY" ? found.value.expires_at ?? "never" : null)
    )
  })
  if (expiry === null || expiry === "never") return
  const now = yield* Clock.currentTimeMillis
  yield* DurableClock.sleep({
    name: "expiry",
    duration: Duration.millis(Math.max(0, Date.parse(expiry) - now)),
    inMemoryThreshold: Duration.zero
  })
  yield* Activity.make({
    name: "expire",
    execute: repo.advance(entity, "READY", (ready, now) =>
      new AgentRuntimeDeployment({ ...ready, status: "EXPIRED", deploy_events: [...ready.deploy_events, expiredEvent(expiry, now)] }, true))
  })
})

/** The workflow, and the start of every deployment with work left when the engine starts. Needs `AgentRuntimeRepo`, `Simulation`. */
export const AgentRuntimeLifecycleLive = startOnBoot(
  "agent runtime deployments",
  Effect.flatMap(AgentRuntimeRepo, (repo) => repo.unfinished),
  (deployment) => AgentRuntimeLifecycle.execute(deployment, { discard: true })
).pipe(Layer.provideMerge(AgentRuntimeLifecycle.toLayer((deployment) => deploy(deployment))))

/** The family's workflows, for the engine (../workflows.ts). */
export const AgentRuntimeWorkflows = {
  workflows: { AgentRuntimeDeployment: AgentRuntimeLifecycle },
  layer: AgentRuntimeLifecycleLive.pipe(Layer.provide(AgentRuntimeRepo.Default))
} satisfies FamilyWorkflows
